// Lock options, their defaults, and how the layers of settings combine.
//
// A method's options come from, most specific first: its tag, the plugin's compile-time
// `defaults`, the runtime's `configure({ defaults })`, then DEFAULT_LOCK_OPTIONS. The first
// two are baked into the woven defineLock() call; the last two are read when the lock is first used.
// Each option's kind, default, reading and checks: option-table.ts.
import { OPTION_NAMES, OPTION_TABLE, optionsProblem } from './option-table';

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
  /**
   * The least time the key stays after the lock was taken, in milliseconds (0: off): a body that ends
   * sooner leaves the key to expire then, token-checked, rather than deleting it — so a scheduled job's
   * other instances, whose timers fire a little later, skip the same tick (ShedLock's lockAtLeastFor).
   */
  minHold: number;
}

/** The table's defaults (option-table.ts). */
export const DEFAULT_LOCK_OPTIONS: Readonly<LockOptions> = Object.freeze(
  Object.fromEntries(OPTION_NAMES.map((name) => [name, OPTION_TABLE[name].default])) as unknown as LockOptions,
);

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
  const problem = optionsProblem(options);
  if (problem) throw new TypeError(`lockweave: ${problem}`);
  return options;
}
