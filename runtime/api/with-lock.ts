// The programmatic API, for code that is not a tagged method: the same locks, the same keys.
//
//   await withLock({ businessFlag: 'payOrder', key: orderNo }, async (lease) => { ... });
//   await using lease = await lock({ businessFlag: 'payOrder', key: orderNo });
import type { LockOptions } from '../base/options';
import { MethodLock, runAcquired, type FailureClass } from './define-lock';
import type { AnyLease } from '../lock/lease';

export interface LockRequest extends Partial<Omit<LockOptions, 'onFail'>> {
  businessFlag: string;
  /** The key value, or several values for a composite key. */
  key: unknown;
  /** `throw` (default), or a class to reject with. `skip` is for withLock only. */
  onFail?: 'throw' | 'skip' | FailureClass;
}

function toMethodLock(request: LockRequest): { lock: MethodLock; onFail: FailureClass | undefined } {
  const { key: _key, onFail, ...options } = request;
  const lock = new MethodLock({ ...options, onFail: typeof onFail === 'string' ? onFail : undefined });
  return { lock, onFail: typeof onFail === 'function' ? onFail : undefined };
}

function acquireFor(request: LockRequest): Promise<AnyLease | undefined> {
  const { lock, onFail } = toMethodLock(request);
  return Array.isArray(request.key) ? lock.acquireComposite(request.key, onFail) : lock.acquire(request.key, onFail);
}

/** Runs `body` while holding the lock; resolves `undefined` without running it when `onFail: 'skip'` and the lock is busy. */
export async function withLock<T>(
  request: LockRequest,
  body: (lease: AnyLease) => Promise<T> | T,
): Promise<T | undefined> {
  return runAcquired(acquireFor(request), async (lease) => body(lease));
}

/**
 * Acquires and returns the lease; release it with `await lease.release()` or `await using`.
 * Code between acquire and release is not marked as holding the key (there is no callback to
 * scope it to): run it through `lease.run(async () => ...)` if it may call locked methods again.
 */
export async function lock(request: LockRequest): Promise<AnyLease> {
  if (request.onFail === 'skip')
    throw new TypeError("lockweave: lock() cannot skip; use withLock() for onFail: 'skip'");
  return (await acquireFor(request))!;
}
