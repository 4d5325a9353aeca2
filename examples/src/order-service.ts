// The original Java article's demo controller as a TypeScript service: one method per way of
// naming the key. Each tag below is woven by `tspc` into an acquire / try / finally.
import type { Order } from './order';

export class OrderService {
  /** Case 1 — the key is the argument itself: locks LOCK_payOrder_<orderNo>.
   * @redisLock businessFlag=payOrder keyName=orderNo */
  async payByValue(orderNo: string): Promise<string> {
    console.log(`  body: paying order ${orderNo}`);
    return 'ok';
  }

  /** Case 2 — the key is a field of an object (the Java original's `keyType = CLASS`).
   * @redisLock businessFlag=payOrder keyName=order keyType=CLASS fieldName=orderNo */
  async payByBean(order: Order): Promise<string> {
    console.log(`  body: paying order ${order.orderNo} for ${order.userNo}`);
    return 'ok';
  }

  /** Case 3 — the key is an entry of a Map (the Java original's `keyType = JSON`).
   * @redisLock businessFlag=payOrder keyName=paramMap keyType=JSON fieldName=orderNo */
  async payByJson(paramMap: Map<string, unknown>): Promise<string> {
    console.log(`  body: paying order ${String(paramMap.get('orderNo'))} from a map`);
    return 'ok';
  }

  /** Case 4 — a slow payment: a second caller for the same order waits, then gets the lock.
   * @redisLock businessFlag=payOrder keyName=orderNo lockTime=20 retries=3 waitTime=5s */
  async paySlowly(orderNo: string, caller: string): Promise<string> {
    console.log(`  body: ${caller} starts paying order ${orderNo}`);
    await new Promise((resolve) => setTimeout(resolve, 600));
    console.log(`  body: ${caller} has paid order ${orderNo}`);
    return `paid by ${caller}`;
  }
}
