// lockweave as its users write it: a tagged method, woven by tspc when the bench is built
// (bench/tsconfig.json carries the plugin). This file is the product under test; its
// hand-woven twin (lockweave-hand-woven.ts) stands in only when the transformer cannot weave.
//
// The tag's retry budget (200 × 100 ms = 20 s) lets every hot-key caller succeed; a release
// wakes a waiter at once, so waitTime only bounds how long a waiter sleeps without news.
export class BenchService {
  /** @redisLock businessFlag=bench keyName=key lockTime=30s retries=200 waitTime=100ms */
  async critical<T>(key: string, body: () => Promise<T>): Promise<T> {
    return body();
  }

  /** The same lock without reentrancy, which is the only thing that turns on AsyncLocalStorage.
   * @redisLock businessFlag=bench keyName=key lockTime=30s retries=200 waitTime=100ms reentrant=false */
  async criticalNotReentrant<T>(key: string, body: () => Promise<T>): Promise<T> {
    return body();
  }
}

/** The tag options above, as the woven spec states them (for results.md). */
export const TAGGED_SETTINGS =
  'lockTime=30s retries=200 waitTime=100ms (defaults: watchdog=true reentrant=true autoUnlock=true)';

/** True when tspc wove the method: its emitted body then acquires its lock. */
export function isWoven(): boolean {
  return /await \w+_lock_1\.acquire\(/.test(BenchService.prototype.critical.toString());
}
