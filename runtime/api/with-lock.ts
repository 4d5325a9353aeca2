// The programmatic API, for code that is not a tagged method: the same locks, the same keys.
//
//   await withLock({ businessFlag: 'payOrder', key: orderNo }, async (lease) => { ... });
//   await using lease = await lock({ businessFlag: 'payOrder', key: orderNo });
//   await withLock({ businessFlag: 'nightlyReport', keyless: true, onFail: 'skip' }, report);
import { MethodLock, runAcquired, type FailureClass } from './define-lock';
import type { AnyLease } from '../lock/lease';
import { requestedKey, type LockRequest } from './lock-request';

export type { LockRequest, LockTarget } from './lock-request';

function acquireFor(request: LockRequest): Promise<AnyLease | undefined> {
  try {
    const { key: _key, keyless: _keyless, onFail, ...options } = request;
    const requested = requestedKey(request);
    const lock = new MethodLock({ ...options, onFail: typeof onFail === 'string' ? onFail : undefined });
    return requested.acquire(lock, typeof onFail === 'function' ? (onFail as FailureClass) : undefined);
  } catch (error) {
    return Promise.reject(error);
  }
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
