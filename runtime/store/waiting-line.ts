// The names of a key's line of waiters (see redis-scripts.ts for how the line is used).
//
// Two sorted sets beside the lock key: `line` orders waiters by their place (their order of
// arrival), `lapses` by when each entry lapses unless its waiter comes back.
// A script touches the lock key and both sets at once, so under Redis Cluster all three must
// hash to one slot: they share the lock key's hash tag, or take the whole key as their tag.
export interface WaitingLine {
  readonly line: string;
  readonly lapses: string;
}

export function waitingLineOf(key: string): WaitingLine {
  const base = sameSlotBase(key);
  return { line: `${base}:lockweave:line`, lapses: `${base}:lockweave:lapses` };
}

/**
 * The key's fencing counter (see redis-scripts.ts): a string beside the key, in its slot, named as
 * the line is. It has no TTL — a counter that expired could start again below a number already
 * given out — so a key locked with fencing leaves this one small key behind.
 */
export function fenceCounterOf(key: string): string {
  return `${sameSlotBase(key)}:lockweave:fence`;
}

/**
 * A name that hashes to the slot of `key`. Cluster hashes only the text between the first `{`
 * and the first `}` after it, when that text is not empty; else the whole key.
 */
export function sameSlotBase(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  if (close > open + 1) return key; // the key has a hash tag: anything after it keeps it
  // No tag: wrapping the whole key in braces makes it the tag — unless it holds a `}`, which would
  // end the tag early. Such a key (rare: it comes from a user's value) keeps a plain suffix, which
  // is right on one Redis; on Cluster the scripts then fail with CROSSSLOT, so the call fails
  // with an error rather than locking without its line.
  return key.includes('}') ? key : `{${key}}`;
}
