// Turning a key value into a Redis key, and refusing values that would make a wrong lock.
//
// the original Java aspect turned a missing value into the text "null" and locked
// `LOCK_payOrder_null` — one lock shared by every call with a bad argument. Here a value that
// is null, undefined, empty or not a scalar rejects with LockKeyError and the body never runs.
//
// The encoding of the part after `<prefix><businessFlag>_` — one rule, so that no two different
// (businessFlag, key) pairs under one prefix give one Redis key (base/key-names.ts keeps `_` out
// of a businessFlag, so the flag ends at the first `_`):
//   - a plain value is written as it is: `LOCK_payOrder_Test001`;
//   - a value that starts with `"` or `[`, or holds `{` or `}`, is written as a JSON string:
//     `LOCK_payOrder_"[1]"`, `LOCK_payOrder_"\u007bt1\u007do7"`;
//   - a composite key is a JSON array of strings: `LOCK_order_["U7","O42"]`.
// The first character tells the three forms apart, and each form reads back to one value. Braces
// never come from a value: in Redis Cluster the first `{…}` of a key picks its slot, and lockweave
// tells its own keys from lock keys by their braces (store/waiting-line.ts), so a value must not
// be able to write one. A string that is not well-formed UTF-16 (a lone surrogate) is refused:
// Redis would store it as U+FFFD, and 'a\ud800' and 'a\udc00' would lock one key.
import { LockKeyError } from '../base/errors';
import { isOwnKey } from '../store/waiting-line';

/** Longer keys are almost always a serialised object passed by mistake. */
export const MAX_KEY_LENGTH = 8192;

export type KeyValue = string | number | bigint | boolean;

/**
 * `<prefix><businessFlag>`, e.g. `LOCK_nightlyReport`: the lock of a tag without keyName, one per
 * business (a scheduled job's). It never equals a keyed key under the same prefix: those continue
 * with `_` after the flag, and a flag holds no `_`.
 */
export function keylessLockKey(prefix: string, businessFlag: string): string {
  const key = `${prefix}${businessFlag}`;
  // A flag may hold `:`, so `{app}` and `:lockweave:line` would lock `{app}:lockweave:line` — the
  // line of waiters of the key `app` (store/waiting-line.ts). A keyed key cannot: its `_` stands there.
  if (isOwnKey(key))
    throw new LockKeyError(`${key} is the name of one of lockweave's own keys, not a lock key; no lock was taken`, key);
  return checkedLength(key);
}

/** `<prefix><businessFlag>_<value>`, e.g. `LOCK_payOrder_Test001`. */
export function lockKey(prefix: string, businessFlag: string, value: unknown): string {
  const text = keyText(prefix, businessFlag, value, undefined);
  return checkedLength(`${prefix}${businessFlag}_${isPlain(text) ? text : quoted(text)}`);
}

/**
 * A composite key joins its parts as a JSON array of strings — `LOCK_order_["U7","O42"]` —
 * so that no choice of part values can make two different tuples give one key
 * (a plain separator would: ("a_b","c") and ("a","b_c")).
 */
export function compositeLockKey(prefix: string, businessFlag: string, values: readonly unknown[]): string {
  if (!Array.isArray(values) || values.length === 0) {
    throw new LockKeyError(
      `a composite key for ${prefix}${businessFlag}_… has no parts; no lock was taken`,
      `${prefix}${businessFlag}_`,
    );
  }
  const parts = mapEach(values, (value, index) => quoted(keyText(prefix, businessFlag, value, index)));
  return checkedLength(`${prefix}${businessFlag}_[${parts.join(',')}]`);
}

/**
 * map() over a list the caller gave, by index: a hole in a sparse array (`[, 'a']`, `new Array(2)`)
 * is the value undefined there, refused as `[undefined, 'a']` is. Array.prototype.map and its kin
 * skip holes: `[, 'a']` as a composite key wrote the hole as nothing (`["a"]` is another key), and as
 * keys locked `a` alone. The first value refused ends it, however long the list says it is.
 */
export function mapEach<T>(values: readonly unknown[], each: (value: unknown, index: number) => T): T[] {
  const mapped: T[] = [];
  for (let index = 0; index < values.length; index++) mapped.push(each(values[index], index));
  return mapped;
}

/** Written as it is: not empty, no brace, and not starting as the other two forms do. */
function isPlain(text: string): boolean {
  return text[0] !== '"' && text[0] !== '[' && !/[{}]/.test(text);
}

/** A JSON string whose braces are escaped too (JSON.parse reads it back unchanged). */
function quoted(text: string): string {
  return JSON.stringify(text).replace(/[{}]/g, (brace) => (brace === '{' ? '\\u007b' : '\\u007d'));
}

/** In `u` mode a surrogate pair is one code point, so this matches only a lone surrogate. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function keyText(prefix: string, businessFlag: string, value: unknown, part: number | undefined): string {
  const where = part === undefined ? 'the key value' : `key part ${part + 1}`;
  const fail = (what: string) =>
    new LockKeyError(
      `${where} for ${prefix}${businessFlag}_… is ${what}; no lock was taken`,
      `${prefix}${businessFlag}_`,
    );
  switch (typeof value) {
    case 'string':
      if (value.length === 0) throw fail('an empty string');
      if (LONE_SURROGATE.test(value))
        throw fail('not well-formed text (it holds a lone UTF-16 surrogate, which Redis would store as U+FFFD)');
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw fail(String(value));
      return String(value);
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'undefined':
      throw fail('undefined');
    default:
      throw fail(value === null ? 'null' : `of type ${typeof value}, not a string, number, bigint or boolean`);
  }
}

function checkedLength(key: string): string {
  if (key.length > MAX_KEY_LENGTH) {
    throw new LockKeyError(
      `the key is ${key.length} characters long (limit ${MAX_KEY_LENGTH}); no lock was taken`,
      `${key.slice(0, 64)}…`,
    );
  }
  return key;
}
