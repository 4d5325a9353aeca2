// Reading attribute values (from the tag or from the plugin's `defaults`) into plain data.
// Each reader returns the value or a sentence saying what is wrong; the caller owns the position.
import { businessFlagProblem, prefixProblem } from '../../runtime/base/key-names';
import { MAX_TIMER_DELAY_MS } from '../../runtime/base/timer-delay';

export type Result<T> = { ok: true; value: T } | { ok: false; problem: string };

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const bad = <T>(problem: string): Result<T> => ({ ok: false, problem });

/** `20` (seconds), `1500ms`, `20s`, `2m` → milliseconds. */
export function readDuration(value: string | number): Result<number> {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(String(value));
  const factor = match ? ({ ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[match[2] ?? 's'] : 0;
  const ms = match ? Math.round(Number(match[1]) * factor) : NaN;
  if (!(ms >= 1) || !Number.isSafeInteger(ms)) return bad(`"${value}" is not a duration; write a positive number of seconds (20) or a number with ms, s or m (1500ms, 20s, 2m)`);
  // The runtime refuses it too (runtime/base/options.ts): no timer can keep a longer time.
  if (ms > MAX_TIMER_DELAY_MS) return bad(`"${value}" is longer than a lock can keep (at most ${MAX_TIMER_DELAY_MS} ms, about 24.8 days)`);
  return ok(ms);
}

export function readRetries(value: string | number): Result<number> {
  return /^\d+$/.test(String(value)) && Number.isSafeInteger(Number(value))
    ? ok(Number(value))
    : bad(`"${value}" is not a whole number >= 0; write e.g. retries=3`);
}

export function readReplicas(value: string | number): Result<number> {
  return /^\d+$/.test(String(value)) && Number.isSafeInteger(Number(value))
    ? ok(Number(value))
    : bad(`"${value}" is not a whole number >= 0; write e.g. replicas=1`);
}

export function readBoolean(value: string | boolean): Result<boolean> {
  if (value === true || value === 'true') return ok(true);
  if (value === false || value === 'false') return ok(false);
  return bad(`"${value}" is not true or false`);
}

export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// The runtime's own rule (runtime/base/key-names.ts), so a tag, defineLock() and withLock()
// accept exactly the same flags and prefixes.
export function readBusinessFlag(value: string): Result<string> {
  const problem = businessFlagProblem(value);
  return problem === undefined ? ok(value) : bad(problem);
}

export function readPrefix(value: string): Result<string> {
  const problem = prefixProblem(value);
  return problem === undefined ? ok(value) : bad(problem);
}

export type KeyType = 'VALUE' | 'CLASS' | 'JSON';

export function readKeyType(value: string): Result<KeyType> {
  return value === 'VALUE' || value === 'CLASS' || value === 'JSON' ? ok(value) : bad(`"${value}" is not a keyType; use VALUE, CLASS or JSON (or leave it out: it is inferred from the key's type)`);
}
