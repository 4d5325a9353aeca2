// The PING that shows a connection's replies still answer their own commands.
//
// Redis answers in order, and clients pair each reply with the oldest command waiting for one. A
// reply that never comes on a connection that stays up (a proxy or middlebox in front of Redis
// dropped it) leaves its command waiting, and every later reply goes to the command sent before it:
// a SET NX on a key another process holds would be answered with another SET's "OK", and its body
// would run beside the holder. Nothing in a reply says which command it answers, and waiting for a
// bound only tells that one was lost long after the commands written meanwhile read their
// neighbours' replies (a CI run saw it: a caller gave up on the lost reply, its give-back was sent,
// and the give-back's reply answered the lost command — so no bound ever passed — while the next
// SET read the one after it).
//
// So the store writes a PING carrying a nonce after each write of commands on a connection, and hands
// a command its reply only once that PING came back with its own nonce: one reply lost before it
// (or k of them) and the PING gets another command's reply instead, for good, since a lost reply
// is never made up for. One PING a write, not a command: a write holds up to 16 commands
// (command-batch.ts), and Redis answers a PING in well under a microsecond.
//
// The nonce must differ from every reply another command could get on the connection — a key's
// value included, which a stranger may write: so it carries a random part from node:crypto, drawn
// at the first PING (loading node:crypto with the runtime would cost every app's start; by the first
// PING the process locks, and its tokens load it anyway: lock/token.ts), and a counter.
import type * as Crypto from 'node:crypto';

let processPart: string | undefined;
let count = 0;

/** A new nonce for a pairing PING. */
export function pairingNonce(): string {
  processPart ??= (require('node:crypto') as typeof Crypto).randomBytes(12).toString('hex');
  count = (count + 1) % Number.MAX_SAFE_INTEGER;
  return `lockweave-pairing-${processPart}-${count}`;
}

/**
 * Whether `reply`, the reply a PING was paired with, is its own: `nonce` — or ['pong', nonce], a
 * PING's reply on a connection in RESP2 subscriber mode.
 */
export function echoes(reply: unknown, nonce: string): boolean {
  if (Array.isArray(reply))
    return reply.length === 2 && String(reply[0]).toLowerCase() === 'pong' && String(reply[1]) === nonce;
  return typeof reply === 'string' ? reply === nonce : String(reply) === nonce;
}
