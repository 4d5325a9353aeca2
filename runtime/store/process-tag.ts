// Which process a waiter's token belongs to, so that a pass is announced to that process alone.
//
// A release that passes a key to the first waiter in line used to PUBLISH on the key's channel, to
// which every process with a waiter for the key listened: at 8 processes of one caller each, 7
// woke for each pass to the 8th, parsed the notice and set a watch (lock/waiters.ts), and a process
// spent ~50 µs of CPU on each (bench/history.md, "A pass heard where it is used"). So a token says
// its process: a UUID whose first group is the process's tag, the same for all its tokens, with the
// rest random — the version nibble 8 (RFC 9562's vendor-specific UUID) tells it from a plain v4
// UUID, an older lockweave's token. 90 random bits a token stay: unguessable, and unique.
//
// The tag is the runtime copy's, not the store's: tokens are made before a store is chosen for
// them (lock/acquire.ts). Two stores in one process on one Redis then hear each other's passes:
// only a wake-up more, the notice names its waiter. Two processes that draw the same tag (one in
// 4 × 10⁹ a pair) likewise.
import type * as Crypto from 'node:crypto';

let tag: string | undefined;

/** This runtime copy's tag: 8 hex digits, drawn once (node:crypto, loaded with the first lock). */
export function processTag(): string {
  return (tag ??= (require('node:crypto') as typeof Crypto).randomBytes(4).toString('hex'));
}

/** `uuid` (a v4 UUID) as this process's token: its first group the process's tag, its version 8. */
export function taggedToken(uuid: string): string {
  return `${processTag()}${uuid.slice(8, 14)}8${uuid.slice(15)}`;
}

/** Whether `token` names its process, as taggedToken makes it (the release script's heard_at reads it so too). */
export function namesItsProcess(token: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-8/i.test(token);
}
