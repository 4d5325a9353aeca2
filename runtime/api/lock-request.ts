// What a programmatic call names its lock by (withLock(), lock(), inspect()): a business and a
// key — one value, several for a composite key, or, said outright, none (the business's one lock).
//
// Keyless must be said (`keyless: true`), never read from a missing key: a request whose `key` is
// misspelt, or holds a value that came out undefined, would otherwise lock the whole business — one
// lock for every order — where it meant one order's. A `key` that is there but undefined is the key
// value's error (LockKeyError), as in a woven method.
import type { LockOptions } from '../base/options';
import { OPTION_NAMES } from '../base/option-table';
import { checkKeys } from '../base/redis-options';
import { describeValue } from '../base/redis-address';
import type { AnyLease } from '../lock/lease';
import { compositeLockKey, keylessLockKey, lockKey } from '../lock/key';
import type { FailureClass, MethodLock } from './define-lock';

/** The lock a request names: its business, and its key or `keyless: true`. */
export interface LockTarget {
  businessFlag: string;
  /** The key value, or several values for a composite key. Leave it out only with `keyless: true`. */
  key?: unknown;
  /** Lock `<prefix><businessFlag>`, the business's one lock (a scheduled job's), with no key. */
  keyless?: boolean;
}

/** Several keys, each a lock of its own, taken all or nothing in one global order (lock/multi-lease.ts). */
export interface EachKeyRequest extends Omit<LockRequest, 'key' | 'keyless'> {
  keys: readonly unknown[];
}

export interface LockRequest extends LockTarget, Partial<Omit<LockOptions, 'onFail'>> {
  /** `throw` (default), or a class to reject with. `skip` is for withLock only. */
  onFail?: 'throw' | 'skip' | FailureClass;
  /** Aborting it while the call waits rejects the call at once with its reason; once held, it changes nothing. */
  signal?: AbortSignal;
}

/** How a request's key is taken and named: one function pair per form, chosen once. */
export interface RequestedKey {
  acquire(lock: MethodLock, onFail: FailureClass | undefined, signal?: AbortSignal): Promise<AnyLease | undefined>;
  keyOf(prefix: string, businessFlag: string): string;
}

/**
 * What withLock() and lock() read from a request. Any other key is refused: a misspelt option —
 * `redLock: true`, `prefx` — would lock on another server or another key, with no error.
 */
const REQUEST_KEYS: readonly string[] = ['businessFlag', 'key', 'keyless', 'keys', 'signal', ...OPTION_NAMES];

export function checkRequestKeys(request: unknown, where: string, known = REQUEST_KEYS): void {
  if (typeof request !== 'object' || request === null)
    throw new TypeError(
      `lockweave: ${where} takes a request object ({ businessFlag, key, … }); got ${describeValue(request)}`,
    );
  checkKeys(request, known, `lockweave: ${where}`, 'a request key or a lock option');
}

/** `keys` beside `key` or `keyless`: which was meant cannot be told. */
export function refuseMixedKeys(request: LockTarget & { keys?: unknown }): void {
  if (Object.hasOwn(request, 'keys') && (Object.hasOwn(request, 'key') || request.keyless !== undefined))
    throw new TypeError(
      `lockweave: the request for ${request.businessFlag} names keys beside key or keyless; name one of them`,
    );
}

const KEYLESS: RequestedKey = {
  acquire: (lock, onFail, signal) => lock.acquireKeyless(onFail, signal),
  keyOf: keylessLockKey,
};

/** The form of `target`'s key; a TypeError when it names both a key and keyless, or neither. */
export function requestedKey(target: LockTarget): RequestedKey {
  const hasKey = Object.hasOwn(target, 'key');
  if (target.keyless !== undefined && target.keyless !== true && target.keyless !== false)
    throw new TypeError(`lockweave: keyless must be true or false, got ${String(target.keyless)}`);
  if (target.keyless === true) {
    if (hasKey)
      throw new TypeError(
        `lockweave: the request for ${target.businessFlag} names a key and keyless: true; name one of them`,
      );
    return KEYLESS;
  }
  if (!hasKey)
    throw new TypeError(
      `lockweave: the request for ${target.businessFlag} names no key: pass key (the value to lock on), ` +
        "keys (several, each a lock of its own), or keyless: true for the business's one lock",
    );
  const { key } = target;
  if (Array.isArray(key))
    return {
      acquire: (lock, onFail, signal) => lock.acquireComposite(key, onFail, signal),
      keyOf: (prefix, flag) => compositeLockKey(prefix, flag, key),
    };
  return {
    acquire: (lock, onFail, signal) => lock.acquire(key, onFail, signal),
    keyOf: (prefix, flag) => lockKey(prefix, flag, key),
  };
}
