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
// The nonce only has to differ from every reply another command could get on the connection: a
// counter does, with a random part so that a key holding such a text by chance is no concern. It is
// not a secret: whoever could forge replies on the connection could forge any reply.

const PROCESS_PART = Math.random().toString(36).slice(2, 10);
let count = 0;

/** A new nonce for a pairing PING. */
export function pairingNonce(): string {
  count = (count + 1) % Number.MAX_SAFE_INTEGER;
  return `lockweave-pairing-${PROCESS_PART}-${count}`;
}

/** Whether `reply`, the reply a PING was paired with, is its own: `nonce` (['pong', nonce] on a subscriber connection in RESP2). */
export function echoes(reply: unknown, nonce: string): boolean {
  const echoed = Array.isArray(reply) ? reply[1] : reply;
  return typeof echoed === 'string' ? echoed === nonce : String(echoed) === nonce;
}
