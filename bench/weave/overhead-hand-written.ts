// The hand-written side of the overhead check: the same body as OverheadService.pay, with the
// try/finally a careful engineer would write around acquire and release.
import { defineLock } from 'lockweave/runtime';

const payLock = defineLock({
  site: 'OverheadService.pay',
  businessFlag: 'overhead',
  lockTime: 30000,
  retries: 3,
  waitTime: 100,
});

export class HandWrittenOverheadService {
  async pay(orderNo: string, amount: number): Promise<number> {
    const lease = await payLock.acquire(orderNo);
    try {
      // run() scopes the held key to the body, for reentrancy, as the woven code's does.
      return await lease.run(async () => amount + orderNo.length);
    } finally {
      await lease.release();
    }
  }
}
