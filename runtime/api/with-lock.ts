// The programmatic API, for code that is not a tagged method: the same locks, the same keys.
//
//   await withLock({ businessFlag: 'payOrder', key: orderNo }, async (lease) => { ... });
//   await using lease = await lock({ businessFlag: 'payOrder', key: orderNo });
//   await withLock({ businessFlag: 'nightlyReport', keyless: true, onFail: 'skip' }, report);
import { MethodLock, runAcquired, type FailureClass } from './define-lock';
import type { AnyLease } from '../lock/lease';
import type { MultiLease } from '../lock/multi-lease';
import { checkRequestKeys, refuseMixedKeys, requestedKey, type EachKeyRequest, type LockRequest } from './lock-request';

export type { EachKeyRequest, LockRequest, LockTarget } from './lock-request';

function acquireFor(request: LockRequest | EachKeyRequest): Promise<AnyLease | MultiLease | undefined> {
  try {
    checkRequestKeys(request, 'withLock() / lock()');
    refuseMixedKeys(request);
    const {
      key: _key,
      keyless: _keyless,
      keys,
      onFail,
      signal,
      ...options
    } = request as LockRequest & {
      keys?: unknown;
    };
    const lock = new MethodLock({ ...options, onFail: typeof onFail === 'string' ? onFail : undefined });
    const failure = typeof onFail === 'function' ? (onFail as FailureClass) : undefined;
    if (Object.hasOwn(request, 'keys')) return lock.acquireEach(keys as readonly unknown[], failure, signal);
    return requestedKey(request as LockRequest).acquire(lock, failure, signal);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Runs `body` while holding the lock; resolves `undefined` without running it when `onFail: 'skip'` and the lock is busy.
 * With `keys`, holds each key as a lock of its own, taken all or nothing in one global order.
 */
export function withLock<T>(
  request: EachKeyRequest,
  body: (lease: MultiLease) => Promise<T> | T,
): Promise<T | undefined>;
export function withLock<T>(request: LockRequest, body: (lease: AnyLease) => Promise<T> | T): Promise<T | undefined>;
export async function withLock<T>(
  request: LockRequest | EachKeyRequest,
  body: (lease: never) => Promise<T> | T,
): Promise<T | undefined> {
  return runAcquired(acquireFor(request), async (lease) => body(lease as never));
}

/**
 * Acquires and returns the lease; release it with `await lease.release()` or `await using`.
 * Code between acquire and release is not marked as holding the key (there is no callback to
 * scope it to): run it through `lease.run(async () => ...)` if it may call locked methods again.
 */
export function lock(request: EachKeyRequest): Promise<MultiLease>;
export function lock(request: LockRequest): Promise<AnyLease>;
export async function lock(request: LockRequest | EachKeyRequest): Promise<AnyLease | MultiLease> {
  if (request.onFail === 'skip')
    throw new TypeError("lockweave: lock() cannot skip; use withLock() for onFail: 'skip'");
  return (await acquireFor(request))!;
}
