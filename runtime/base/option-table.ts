// The lock options: one table, read by the runtime (defaults, validation: options.ts) and by the
// transformer (which attributes a tag and the plugin's defaults may set, how each is read, what
// a tag may not combine: transformer/check/attributes.ts, analyse.ts, plugin-config.ts). A new
// option is a row here and a member of LockOptions; the compiler refuses one without the other.
// No imports beyond base/: the transformer loads this file, and must not load a store with it.
import { KINDS, tooLong, type KindName } from './option-kinds';
import type { LockOptions } from './options';

interface OptionRow<K extends KindName, T> {
  readonly kind: K;
  readonly default: T;
  /** How a message writes a good value of this option as a tag attribute. */
  readonly example: string;
}

type Rows = { readonly [N in keyof LockOptions]: OptionRow<KindName, LockOptions[N]> };

/** What each option means is said on LockOptions (options.ts). The rows are in the order a woven
 * defineLock() writes them (transformer/weave/lock-spec.ts). */
export const OPTION_TABLE = {
  lockTime: { kind: 'duration', default: 30_000, example: 'lockTime=20s' },
  retries: { kind: 'count', default: 3, example: 'retries=3' },
  waitTime: { kind: 'duration', default: 5_000, example: 'waitTime=5s' },
  onFail: { kind: 'onFail', default: 'throw', example: 'onFail=skip' },
  autoUnlock: { kind: 'boolean', default: true, example: 'autoUnlock=false' },
  watchdog: { kind: 'boolean', default: true, example: 'watchdog=false' },
  reentrant: { kind: 'boolean', default: true, example: 'reentrant=false' },
  prefix: { kind: 'prefix', default: 'LOCK_', example: 'prefix=LOCK_' },
  fencing: { kind: 'boolean', default: false, example: 'fencing=true' },
  replicas: { kind: 'count', default: 0, example: 'replicas=1' },
  redlock: { kind: 'boolean', default: false, example: 'redlock=true' },
  minHold: { kind: 'durationOrZero', default: 0, example: 'minHold=50s' },
} as const satisfies Rows;

export type OptionName = keyof LockOptions;

/** Every option, in the table's order. */
export const OPTION_NAMES = Object.keys(OPTION_TABLE) as readonly OptionName[];

/**
 * Options that need the one server that made a grant, which a Redlock grant — a majority of
 * independent servers — does not have: a lock with `redlock` asks for none of them. The runtime
 * refuses the pair when a lock's settings are resolved; the transformer refuses a tag that asks for
 * it, or inherits it from the plugin's defaults, so that the build fails rather than every call.
 */
export const ONE_SERVER_OPTIONS = [
  {
    name: 'fencing',
    asked: (options: Partial<LockOptions>) => options.fencing === true,
    why: "fencing numbers come from one server's counter, and Redlock's independent servers keep none in common",
  },
  {
    name: 'replicas',
    asked: (options: Partial<LockOptions>) => (options.replicas ?? 0) > 0,
    why: "WAIT asks one server's replicas; Redlock's servers are independent primaries (the majority is its safeguard)",
  },
] as const;

/** The transformer's reason, one for every row above. */
export const ONE_SERVER_REASON =
  'it needs the one server that made the grant, and a Redlock grant is a majority of independent servers';

/** The first option `options` asks for that its `redlock` cannot give, if any. */
export function redlockClash(options: Partial<LockOptions>): (typeof ONE_SERVER_OPTIONS)[number] | undefined {
  return options.redlock ? ONE_SERVER_OPTIONS.find((row) => row.asked(options)) : undefined;
}

/**
 * What is wrong with `minHold` beside the options it depends on, as far as `options` name them (a
 * tag may leave lockTime to the defaults: the runtime checks the whole set when the lock is made).
 * minHold keeps the key after a body that ends early, which the key's lease must cover (ShedLock's
 * lockAtLeastFor ≤ lockAtMostFor); autoUnlock=false keeps it to the lease's end already.
 */
export function holdClash(options: Partial<LockOptions>): string | undefined {
  const { minHold, lockTime, autoUnlock } = options;
  if (!minHold) return undefined;
  if (autoUnlock === false)
    return 'minHold and autoUnlock=false cannot be combined: autoUnlock=false keeps the key to the end of its lease already';
  if (lockTime !== undefined && minHold > lockTime)
    return `minHold (${minHold} ms) is longer than lockTime (${lockTime} ms): a key is held at least minHold only within its lease; raise lockTime to minHold or more`;
  return undefined;
}

/**
 * What is wrong with a whole set of options (the message after `lockweave: `), or undefined: each
 * value by its kind, then the bounds that span two options, then the combinations refused.
 */
export function optionsProblem(options: LockOptions): string | undefined {
  return valuesProblem(options) ?? combinationProblem(options);
}

/** Each value by its kind: what a tag's reading of one attribute must never produce. */
export function valuesProblem(options: LockOptions): string | undefined {
  for (const name of OPTION_NAMES) {
    const problem = valueProblem(name, options[name]);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * What is wrong with one option's value by its kind (the message after `lockweave: `), or undefined.
 * Booleans too: `autoUnlock: 'false'` (a value read from an environment variable or a settings file)
 * read as truthy would release the key the caller asked to keep.
 */
export function valueProblem(name: OptionName, value: unknown): string | undefined {
  const { kind } = OPTION_TABLE[name] as OptionRow<KindName, unknown>;
  const problem =
    KINDS[kind].problem(name, value) ?? (kind === 'duration' ? tooLong(name, value as number) : undefined);
  return problem && `option ${problem}`;
}

function combinationProblem(options: LockOptions): string | undefined {
  // A nested call waits for its sibling's turn for retries × waitTime, on one timer (api/define-lock.ts).
  const longestWait = tooLong('retries × waitTime (the longest wait)', options.retries * options.waitTime);
  if (longestWait) return `option ${longestWait}`;
  const clash = redlockClash(options);
  if (clash) return `options redlock and ${clash.name} cannot be combined: ${clash.why}`;
  const hold = holdClash(options);
  return hold && `options ${hold}`;
}
