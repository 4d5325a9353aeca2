// A waiter's bound holds even when the store never starts delivering notices (a subscription that
// hangs): it goes on with its scheduled attempts instead of waiting for the subscription.
import test from 'ava';
import { configure, close, defineLock, LockAcquireError, MemoryLockStore, type Notice } from 'lockweave';

class SilentStore extends MemoryLockStore {
  override listen(_key: string, _notice: Notice): Promise<void> {
    return new Promise(() => undefined); // never subscribed
  }
}

test('a caller whose store never starts delivering notices still gives up at its deadline', async (t) => {
  configure({ store: new SilentStore() });
  const L = defineLock({ businessFlag: 'silent', retries: 2, waitTime: 300 });
  const holder = await L.acquire('A');
  const startedAt = Date.now();
  const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
  const tookMs = Date.now() - startedAt;
  t.is(error!.attempts, 3, 'the first attempt and its 2 scheduled ones');
  t.true(tookMs < 5_000, `gave up after ${tookMs} ms (deadline 600 ms); it used to wait for the subscription for good`);
  await holder!.release();
  await close();
});
