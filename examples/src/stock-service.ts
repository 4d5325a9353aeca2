// Fencing tokens: a lock cannot stop a holder that paused past its lease (a long GC pause, a
// swapped-out process, a failover that lost the grant) from writing when it wakes, while the next
// holder writes too. The fencing token can: it grows with every grant, so the storage keeps the
// highest it has seen and refuses the late writer's older one.
import { currentLock } from 'lockweave';
import type { FencedStock } from './fenced-stock';

export class StockService {
  constructor(private readonly stock: FencedStock) {}

  /** Case 5 — the write carries the lock's fencing token, which the body reaches with currentLock().
   * @redisLock businessFlag=restock keyName=sku lockTime=1s watchdog=false retries=10 waitTime=500ms fencing=true */
  async restock(sku: string, count: number, caller: string, pauseMs: number): Promise<boolean> {
    const { fence } = currentLock();
    console.log(
      `  body: ${caller} holds ${sku} with fence ${fence}${pauseMs ? `, then stalls ${pauseMs} ms (its 1 s lease ends meanwhile)` : ''}`,
    );
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const written = await this.stock.write(sku, count, fence);
    console.log(
      `  body: ${caller} writes count=${count} with fence ${fence}: ${written ? 'accepted' : 'REFUSED, a newer holder wrote already'}`,
    );
    return written;
  }
}
