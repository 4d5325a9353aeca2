// The kinds of lock option, and for each kind the three ways one value is checked:
//   - read:        as written in a tag (text) or in the plugin's JSON defaults — units, range;
//   - jsonProblem: a JSON default of the wrong type (`"lockTime": true`);
//   - problem:     a value user code passed at run time (defineLock, withLock, configure defaults).
// The table of options (option-table.ts) gives each option its kind. The transformer reads the
// first two at compile time, the runtime the third, so a tag and a call accept the same values.
// No imports beyond base/: the transformer loads this file, and must not load a store with it.
import { withoutUrlCredentials } from './url-credentials';
import { prefixProblem } from './key-names';
import { MAX_TIMER_DELAY_MS } from './timer-delay';

export type Result<T> = { ok: true; value: T } | { ok: false; problem: string };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const bad = <T>(problem: string): Result<T> => ({ ok: false, problem });

/** A value in the plugin's JSON defaults that may be an option; objects and arrays are refused before. */
export type JsonScalar = string | number | boolean;

export interface OptionKind<T> {
  /** Text from a tag, or a scalar from the plugin's JSON defaults, to the value; a sentence when wrong. */
  readonly read: (value: JsonScalar, example: string) => Result<T>;
  /** What is wrong with the JSON type of a plugin default, before it is read; undefined when it fits. */
  readonly jsonProblem: (value: JsonScalar) => string | undefined;
  /** What is wrong with a value user code passed (the message after `lockweave: option `); undefined when right. */
  readonly problem: (name: string, value: unknown) => string | undefined;
}

/**
 * A value user code passed, for a message: a string quoted and called one, since `false` and
 * `"false"` (read from an environment variable) print alike and mean opposite things. Lock options
 * are not secrets, but a Redis URL given as one by mistake may hold a password: hidden; a long
 * string is cut.
 */
export function shownValue(value: unknown): string {
  return typeof value === 'string'
    ? `the string ${JSON.stringify(withoutUrlCredentials(value).slice(0, 40))}`
    : String(value);
}

/** `20` (seconds), `1500ms`, `20s`, `2m` → milliseconds. */
export function readDuration(value: JsonScalar): Result<number> {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(String(value));
  const factor = match ? ({ ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[match[2] ?? 's'] : 0;
  const ms = match ? Math.round(Number(match[1]) * factor) : NaN;
  if (!(ms >= 1) || !Number.isSafeInteger(ms))
    return bad(
      `"${value}" is not a duration; write a positive number of seconds (20) or a number with ms, s or m (1500ms, 20s, 2m)`,
    );
  // No timer can keep a longer time (see tooLong below).
  if (ms > MAX_TIMER_DELAY_MS)
    return bad(`"${value}" is longer than a lock can keep (at most ${MAX_TIMER_DELAY_MS} ms, about 24.8 days)`);
  return ok(ms);
}

/** `3` → 3; `example` is the attribute as the message shows it, e.g. `retries=3`. */
export function readCount(value: JsonScalar, example: string): Result<number> {
  return /^\d+$/.test(String(value)) && Number.isSafeInteger(Number(value))
    ? ok(Number(value))
    : bad(`"${value}" is not a whole number >= 0; write e.g. ${example}`);
}

export function readBoolean(value: JsonScalar): Result<boolean> {
  if (value === true || value === 'true') return ok(true);
  if (value === false || value === 'false') return ok(false);
  return bad(`"${value}" is not true or false`);
}

/** The runtime's own rule (key-names.ts), so a tag, defineLock() and withLock() accept the same prefixes. */
export function readPrefix(value: JsonScalar): Result<string> {
  const problem = prefixProblem(value);
  return problem === undefined ? ok(value as string) : bad(problem);
}

/**
 * Every wait and lease is a timer somewhere (a store's expiry, the watchdog, a waiter's bound,
 * a nested call's bound of retries × waitTime), and Node fires a timer set past 2^31 − 1 ms at
 * once. A time no timer can keep is refused rather than cut short later.
 */
export function tooLong(name: string, ms: number): string | undefined {
  return ms > MAX_TIMER_DELAY_MS
    ? `${name} is ${ms} ms; the most a lock can keep is ${MAX_TIMER_DELAY_MS} ms (about 24.8 days, Node's longest timer)`
    : undefined;
}

export const KINDS = {
  duration: {
    read: readDuration,
    jsonProblem: (value) => (typeof value === 'boolean' ? `${value} is not a duration` : undefined),
    // Whole milliseconds: Redis refuses `SET … PX 1500.5`, and a lock that no store can take would
    // leave its callers waiting out the whole schedule for a LockAcquireError. One rule for every
    // store, so MemoryLockStore in unit tests fails where Redis in production would.
    problem: (name, value) =>
      typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0
        ? `${name} must be a whole number of milliseconds > 0, got ${shownValue(value)}`
        : undefined,
  } satisfies OptionKind<number>,
  // A duration that 0 turns off (minHold): `0`, or what a duration reads.
  durationOrZero: {
    read: (value) => (String(value) === '0' ? ok(0) : readDuration(value)),
    jsonProblem: (value) => (typeof value === 'boolean' ? `${value} is not a duration` : undefined),
    problem: (name, value) =>
      typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0
        ? `${name} must be a whole number of milliseconds >= 0 (0: off), got ${shownValue(value)}`
        : undefined,
  } satisfies OptionKind<number>,
  count: {
    read: readCount,
    jsonProblem: (value) => (typeof value === 'boolean' ? `${value} is not a number` : undefined),
    problem: (name, value) =>
      typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0
        ? `${name} must be a whole number >= 0, got ${shownValue(value)}`
        : undefined,
  } satisfies OptionKind<number>,
  boolean: {
    read: readBoolean,
    jsonProblem: (value) => (typeof value === 'number' ? `${value} is not true or false` : undefined),
    problem: (name, value) =>
      typeof value !== 'boolean' ? `${name} must be true or false, got ${shownValue(value)}` : undefined,
  } satisfies OptionKind<boolean>,
  prefix: {
    read: readPrefix,
    jsonProblem: (value) => (typeof value !== 'string' ? `${JSON.stringify(value)} is not a string` : undefined),
    problem: (name, value) => {
      const problem = prefixProblem(value);
      return problem && `${name}: ${problem}`;
    },
  } satisfies OptionKind<string>,
  // In a tag, onFail may also name a class (transformer/check/on-fail-class.ts); the plugin's JSON
  // defaults and user code choose only between the two words.
  onFail: {
    read: (value) =>
      value === 'throw' || value === 'skip'
        ? ok(value)
        : bad(
            `${withoutUrlCredentials(JSON.stringify(value))} must be "throw" or "skip" (a class can only be named in a tag)`,
          ),
    jsonProblem: () => undefined,
    problem: (name, value) =>
      value !== 'throw' && value !== 'skip' ? `${name} must be "throw" or "skip", got ${shownValue(value)}` : undefined,
  } satisfies OptionKind<'throw' | 'skip'>,
} as const;

export type KindName = keyof typeof KINDS;
