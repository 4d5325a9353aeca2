// What a businessFlag and a prefix may hold: one table for the tag (checked at compile time),
// defineLock(), withLock()/lock() and configure() alike.
//
// A lock key is `<prefix><businessFlag>_<value>` (lock/key.ts). A businessFlag holds no `_`, so the
// first `_` after the prefix ends it and no key can be read as two (flag, value) pairs: with `_`
// allowed, (a_b, c) and (a, b_c) both locked `LOCK_a_b_c`. Braces belong to the prefix alone, as at
// most one Cluster hash tag: lockweave's own keys are told from lock keys by the braces they hold
// (store/waiting-line.ts), so neither a flag nor a value may bring one in.
import { withoutUrlCredentials } from './url-credentials';

/** Letters, digits and `. : -`. */
export const BUSINESS_FLAG = /^[A-Za-z0-9.:-]+$/;

/** Letters, digits and `_ . : -`, with at most one Cluster hash tag `{…}` of such characters. */
export const PREFIX = /^[A-Za-z0-9_.:-]*(?:\{[A-Za-z0-9_.:-]+\}[A-Za-z0-9_.:-]*)?$/;

/** What is wrong with `value` as a businessFlag, or undefined when it is one. */
export function businessFlagProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && BUSINESS_FLAG.test(value)) return undefined;
  return `${describe(value)} is not a valid businessFlag; use letters, digits and . : - only (no _, which separates the flag from the key value)`;
}

/** What is wrong with `value` as a prefix, or undefined when it is one. */
export function prefixProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && PREFIX.test(value)) return undefined;
  return `${describe(value)} is not a valid prefix; use letters, digits and _ . : - only, with at most one Cluster hash tag such as {app}`;
}

function describe(value: unknown): string {
  return typeof value === 'string'
    ? withoutUrlCredentials(JSON.stringify(value))
    : `a value of type ${value === null ? 'null' : typeof value}`;
}
