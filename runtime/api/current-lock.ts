// A locked body's own lock, reached without a parameter the method did not declare: a method
// tagged with the businessFlag stock, the keyName sku and fencing=true writes
//
//   await storage.write(sku, count, currentLock().fence); // the storage refuses a stale fence
//
// (The tag itself is not quoted here: the plugin reads a tag in a line comment as a mistake.)
// The lock is the innermost one its async call chain runs under (lock/held-locks.ts): in a body
// nested in another lock's body, the nested one; in a reentrant call, the outer lease's grant
// (same key, same fence). Outside any locked body it throws: a write meant to be fenced must never
// go ahead without its fence, nor with another lock's.
import { LockError } from '../base/errors';
import { innermostHeld } from '../lock/held-locks';

/** What a locked body can see of its own lock. */
export interface CurrentLock {
  /** The Redis key. */
  readonly key: string;
  /** The grant's fencing token, which increases with every grant of the key; undefined unless the lock's `fencing` option is on. */
  readonly fence: number | undefined;
  /** Aborts, with a LockLostError, when the lock is lost while the body runs. */
  readonly signal: AbortSignal;
  /**
   * Makes the key last `ms` from now and `ms` the lease's length from here on (the watchdog renews
   * by it). Rejects with LockLostError when the lock is no longer held.
   */
  extend(ms: number): Promise<void>;
  /** Stops the watchdog: the lease runs out at its TTL unless the body ends first. */
  stopRenewal(): void;
}

/**
 * The lock of the locked body this is called from (a woven method's, withLock()'s, or a
 * `lease.run()`'s). Throws LockError when called outside one, or from a callback the body left
 * running after it ended.
 */
export function currentLock(): CurrentLock {
  const lock = innermostHeld();
  if (!lock)
    throw new LockError(
      'lockweave: currentLock() was called outside a locked body (a tagged method, withLock() or lease.run())',
      '',
    );
  if (lock.ended)
    throw new LockError(
      `lockweave: currentLock() was called after the locked body of ${lock.key} ended (from a callback it left running)`,
      lock.key,
    );
  return {
    key: lock.key,
    fence: lock.fence,
    get signal() {
      return lock.signal;
    },
    extend: (ms) => lock.extend(ms),
    stopRenewal: () => lock.stopRenewal(),
  };
}
