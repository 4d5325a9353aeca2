// The names of lockweave's own keys beside a lock key: its line of waiters (see
// scripts/acquire-in-turn.ts and scripts/release.ts for how the line is used), the mark of a claim
// and its fencing counter.
//
// Two sorted sets beside the lock key: `line` orders waiters by their place (their order of
// arrival), `lapses` by when each entry lapses unless its waiter comes back; and a hash, `leases`,
// each waiter's lease by its token, for a binding pass (scripts/release.ts) to give it the key for.
// A script touches the lock key and these keys at once, so under Redis Cluster all must hash to
// one slot: they share the lock key's hash tag, or take the whole key as their tag.
//
// And no lock key may ever be one of them: a value that named the fencing counter or the line
// would break every lock of its key (WRONGTYPE for its waiters, a release that fails and strands
// the key). Braces are what tell them apart. A lock key holds at most one `{` and one `}`, both in
// its prefix's hash tag: neither a businessFlag nor an encoded value can hold one (base/key-names.ts,
// lock/key.ts). So:
//   - beside a key with a hash tag, the name adds a second `{`: `<key>:{lockweave}:line`;
//   - beside a key without one, the name is `{<key>}:lockweave:line`. A lock key starting with
//     `{` has its prefix's tag there, and after the tag's `}` comes `<businessFlag>_<value>`: a
//     `_` that `:lockweave:line` (or `:lapses`, `:leases`, `:claim`, `:fence`) does not hold.
export interface WaitingLine {
  readonly line: string;
  readonly lapses: string;
  readonly leases: string;
}

export function waitingLineOf(key: string): WaitingLine {
  return { line: ownKeyOf(key, 'line'), lapses: ownKeyOf(key, 'lapses'), leases: ownKeyOf(key, 'leases') };
}

/**
 * The mark of a claim (scripts/release.ts, a pass): a string beside the key, in its slot, holding the
 * claimed waiter's token for as long as the claim. A key that holds the same token as its mark is a
 * claim not yet confirmed — the one thing a key's value alone cannot tell from a lease.
 */
export function claimMarkOf(key: string): string {
  return ownKeyOf(key, 'claim');
}

/**
 * The key's fencing counter (see scripts/line-helpers.ts): a string beside the key, in its slot, named as
 * the line is. It has no TTL — a counter that expired could start again below a number already
 * given out — so a key locked with fencing leaves this one small key behind.
 */
export function fenceCounterOf(key: string): string {
  return ownKeyOf(key, 'fence');
}

/**
 * True for a name ownKeyOf() makes (a line, its lapses, a claim's mark, a fencing counter), never for a lock key:
 * a lock key's only braces are its prefix's hash tag, so it cannot end with `:{lockweave}:<name>`,
 * and one that starts with a tag has the flag after it, which holds no `:`.
 */
export function isOwnKey(name: string): boolean {
  return OWN_KEY_PATTERNS.some((pattern) => pattern.test(name));
}

/** The names of the keys lockweave keeps beside a lock key: one list for ownKeyOf() and isOwnKey(). */
const OWN_NAMES = ['line', 'lapses', 'leases', 'claim', 'fence'] as const;
const OWN_KEY_PATTERNS = [
  new RegExp(`:\\{lockweave\\}:(?:${OWN_NAMES.join('|')})$`),
  new RegExp(`^\\{[^}]*\\}:lockweave:(?:${OWN_NAMES.join('|')})$`),
];

function ownKeyOf(key: string, name: (typeof OWN_NAMES)[number]): string {
  return hasHashTag(key) ? `${key}:{lockweave}:${name}` : `${sameSlotBase(key)}:lockweave:${name}`;
}

/**
 * A name that hashes to the slot of `key`: used for the lock key's own names and, on Cluster, for
 * its release channel (release-channel.ts).
 */
export function sameSlotBase(key: string): string {
  if (hasHashTag(key)) return key; // anything after the tag keeps it
  // No tag: wrapping the whole key in braces makes it the tag — unless it holds a `}`, which would
  // end the tag early. No key lockweave makes holds a stray `}` (see above); a key passed to a store
  // directly may, and then keeps a plain suffix: right on one Redis, and on Cluster the scripts fail
  // with CROSSSLOT, so the call fails with an error rather than locking without its line.
  return key.includes('}') ? key : `{${key}}`;
}

/** Cluster hashes only the text between the first `{` and the first `}` after it, when that text is not empty. */
function hasHashTag(key: string): boolean {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1;
}
