// inspect(): what a lock looks like now — held or not, its TTL, its waiters, its last fencing
// token — for code, tests and dashboards. Read in one step on the lock's server (on Redlock, a
// majority's view); never a way to decide who may enter: the answer is old when it arrives.
//
//   const { held, ttlMs, waiters } = await inspect({ businessFlag: 'payOrder', key: orderNo });
import type { LockOptions } from '../base/options';
import type { KeyState } from '../store/lock-store';
import { MethodLock } from './define-lock';
import { checkRequestKeys, requestedKey, type LockTarget } from './lock-request';

/** What inspect() reads: the lock's name, and the options that choose its key and server. */
const INSPECT_KEYS: readonly string[] = ['businessFlag', 'key', 'keyless', 'prefix', 'redlock'];

/** The lock to inspect: named as withLock() names it, with the options that choose its key and server. */
export interface InspectRequest extends LockTarget, Partial<Pick<LockOptions, 'prefix' | 'redlock'>> {}

/** A key's lock now: its Redis key and its state (KeyState). */
export interface LockState extends KeyState {
  readonly key: string;
}

export function inspect(request: InspectRequest): Promise<LockState> {
  try {
    checkRequestKeys(request, 'inspect()', INSPECT_KEYS);
    const { businessFlag, prefix, redlock } = request;
    const requested = requestedKey(request);
    return new MethodLock({ businessFlag, prefix, redlock }).inspect(requested.keyOf);
  } catch (error) {
    return Promise.reject(error);
  }
}
