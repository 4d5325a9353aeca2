// Turning a key value into a Redis key, and refusing values that would make a wrong lock.
//
// The seed's Java aspect turned a missing value into the text "null" and locked
// `LOCK_payOrder_null` — one lock shared by every call with a bad argument. Here a value that
// is null, undefined, empty or not a scalar rejects with LockKeyError and the body never runs.
import { LockKeyError } from '../base/errors';

/** Longer keys are almost always a serialised object passed by mistake. */
export const MAX_KEY_LENGTH = 8192;

export type KeyValue = string | number | bigint | boolean;

/** `<prefix><businessFlag>_<value>`, e.g. `LOCK_payOrder_Test001`. */
export function lockKey(prefix: string, businessFlag: string, value: unknown): string {
  return checkedLength(prefix + businessFlag + '_' + keyText(prefix, businessFlag, value, undefined));
}

/**
 * A composite key joins its parts as a JSON array of strings — `LOCK_order_["U7","O42"]` —
 * so that no choice of part values can make two different tuples give one key
 * (a plain separator would: ("a_b","c") and ("a","b_c")).
 */
export function compositeLockKey(prefix: string, businessFlag: string, values: readonly unknown[]): string {
  const parts = values.map((value, index) => keyText(prefix, businessFlag, value, index));
  return checkedLength(prefix + businessFlag + '_' + JSON.stringify(parts));
}

function keyText(prefix: string, businessFlag: string, value: unknown, part: number | undefined): string {
  const where = part === undefined ? 'the key value' : `key part ${part + 1}`;
  const fail = (what: string) =>
    new LockKeyError(`${where} for ${prefix}${businessFlag}_… is ${what}; no lock was taken`, `${prefix}${businessFlag}_`);
  switch (typeof value) {
    case 'string':
      if (value.length === 0) throw fail('an empty string');
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
      key.slice(0, 64) + '…',
    );
  }
  return key;
}
