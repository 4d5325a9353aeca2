// Lock options, their defaults, and how the layers of settings combine.
//
// A method's options come from, most specific first: its tag, the plugin's compile-time
// `defaults`, the runtime's `configure({ defaults })`, then DEFAULT_LOCK_OPTIONS. The first
// two are baked into the woven spec; the last two are read when the lock is first used.
import { prefixProblem } from './key-names';
import { MAX_TIMER_DELAY_MS } from './timer-delay';

export type OnFail = 'throw' | 'skip';

export interface LockOptions {
  /** The lease in milliseconds: how long the key lives unless renewed. */
  lockTime: number;
  /** Scheduled attempts after the first one fails, `waitTime` apart. */
  retries: number;
  /** The longest wait before the next attempt, in milliseconds; a release wakes waiters at once. */
  waitTime: number;
  /** What a caller gets when every attempt fails (a class is passed by the woven call instead). */
  onFail: OnFail;
  /** Delete the key when the body ends; `false` keeps it until the lease runs out. */
  autoUnlock: boolean;
  /** Renew the lease every `lockTime / 3` while the body runs. */
  watchdog: boolean;
  /** A nested call in the same async call chain that holds the key goes straight in. */
  reentrant: boolean;
  /** Prepended to every key. */
  prefix: string;
  /** Each grant of the key carries a fencing token (`lease.fence`, `currentLock().fence`) that increases with every grant. */
  fencing: boolean;
  /**
   * Replicas that must have the grant before the body runs (Redis `WAIT`); 0 does not ask. A grant
   * fewer replicas acknowledge in time is given back and the acquisition fails.
   */
  replicas: number;
  /** Lock on a majority of the Redlock servers (`configure({ redlock })`) rather than on the one Redis. */
  redlock: boolean;
}

export const DEFAULT_LOCK_OPTIONS: Readonly<LockOptions> = Object.freeze({
  lockTime: 30_000,
  retries: 3,
  waitTime: 5_000,
  onFail: 'throw',
  autoUnlock: true,
  watchdog: true,
  reentrant: true,
  prefix: 'LOCK_',
  fencing: false,
  replicas: 0,
  redlock: false,
});

export function mergeOptions(
  base: Readonly<LockOptions>,
  ...layers: ReadonlyArray<Partial<LockOptions> | undefined>
): LockOptions {
  const merged: LockOptions = { ...base };
  for (const layer of layers) {
    if (!layer) continue;
    for (const name of Object.keys(layer) as (keyof LockOptions)[]) {
      if (layer[name] !== undefined) (merged as unknown as Record<string, unknown>)[name] = layer[name];
    }
  }
  return validateOptions(merged);
}

/** Options reach the runtime from tags (checked at compile time) and from user code (not checked). */
export function validateOptions(options: LockOptions): LockOptions {
  // Whole milliseconds: Redis refuses `SET … PX 1500.5`, and a lock that no store can take would
  // leave its callers waiting out the whole schedule for a LockAcquireError. One rule for every
  // store, so MemoryLockStore in unit tests fails where Redis in production would.
  const positive = (name: keyof LockOptions) => {
    const value = options[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new TypeError(`lockweave: option ${name} must be a whole number of milliseconds > 0, got ${String(value)}`);
    }
  };
  positive('lockTime');
  positive('waitTime');
  if (!Number.isInteger(options.retries) || options.retries < 0) {
    throw new TypeError(`lockweave: option retries must be a whole number >= 0, got ${String(options.retries)}`);
  }
  // Every wait and lease is a timer somewhere (a store's expiry, the watchdog, a waiter's bound,
  // a nested call's bound of retries × waitTime), and Node fires a timer set past 2^31 − 1 ms at
  // once. A time no timer can keep is refused here rather than cut short later.
  const timed = (name: string, ms: number) => {
    if (ms > MAX_TIMER_DELAY_MS) {
      throw new TypeError(`lockweave: option ${name} is ${ms} ms; the most a lock can keep is ${MAX_TIMER_DELAY_MS} ms (about 24.8 days, Node's longest timer)`);
    }
  };
  timed('lockTime', options.lockTime);
  timed('waitTime', options.waitTime);
  timed('retries × waitTime (the longest wait)', options.retries * options.waitTime);
  if (options.onFail !== 'throw' && options.onFail !== 'skip') {
    throw new TypeError(`lockweave: option onFail must be "throw" or "skip", got ${String(options.onFail)}`);
  }
  if (!Number.isSafeInteger(options.replicas) || options.replicas < 0) {
    throw new TypeError(`lockweave: option replicas must be a whole number >= 0, got ${String(options.replicas)}`);
  }
  const badPrefix = prefixProblem(options.prefix);
  if (badPrefix) throw new TypeError(`lockweave: option prefix: ${badPrefix}`);
  if (typeof options.fencing !== 'boolean') {
    throw new TypeError(`lockweave: option fencing must be true or false, got ${String(options.fencing)}`);
  }
  if (typeof options.redlock !== 'boolean') {
    throw new TypeError(`lockweave: option redlock must be true or false, got ${String(options.redlock)}`);
  }
  // Both need the one server that made the grant: its counter (fencing), its replicas (WAIT).
  if (options.redlock && options.fencing) {
    throw new TypeError('lockweave: options redlock and fencing cannot be combined: fencing numbers come from one server\'s counter, and Redlock\'s independent servers keep none in common');
  }
  if (options.redlock && options.replicas > 0) {
    throw new TypeError('lockweave: options redlock and replicas cannot be combined: WAIT asks one server\'s replicas; Redlock\'s servers are independent primaries (the majority is its safeguard)');
  }
  return options;
}
