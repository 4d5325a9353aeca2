// A standalone GLIDE client's commands of one tick, sent as one pipeline that ends with a pairing PING.
//
// GLIDE pairs replies with requests by position, as every client does (pairing-ping.ts): a reply
// lost on a connection that stays up (a proxy or middlebox in front of Redis dropped it) makes each
// later request read the reply of the one after it, for good — seen here: sequential requests all
// time out, and requests in flight together read each other's replies. GLIDE does not make such a
// connection again by itself. So the store gives GLIDE a tick's commands as one non-atomic Batch (a
// pipeline: GLIDE keeps its requests in order only within one) with a PING carrying a nonce last, and
// hands on the replies only when the PING's is its own. Otherwise — or when the pipeline times out, a
// reply perhaps lost with no later one to show it — the connection is ended with a QUIT (Redis closes
// it after the reply, whichever request reads that), and GLIDE connects again; every command of the
// pipeline fails as on a cut, and is made or sent again (lock/acquire.ts, lock/clean-up.ts). At
// most once per COMMAND_TIMEOUT_MS: a slow server's timeouts cost one reconnect, not one each.
//
// A GlideClusterClient's commands go to several nodes, and each reply is checked by itself instead
// (glide-cluster-sender.ts).
import { COMMAND_TIMEOUT_MS, connectionClosed, MAX_BATCH, type CommandSender } from './command-batch';
import { isTimeoutError } from './client-shape';
import { echoes, pairingNonce } from './pairing-ping';

/** What the store uses of GLIDE's Batch: a non-atomic one is a pipeline. */
export interface GlideBatch {
  customCommand(args: string[]): unknown;
}

export type GlideBatchClass = new (isAtomic: boolean) => GlideBatch;

/** What the store uses of a standalone GLIDE client here. */
export interface GlidePipelining {
  customCommand(args: string[]): Promise<unknown>;
  /** `raiseOnError: false`: each failed command's error is in its place among the replies. */
  exec(batch: GlideBatch, raiseOnError: boolean, options?: { timeout?: number }): Promise<unknown[] | null>;
  readonly config?: { readonly requestTimeout?: unknown };
}

/** GLIDE's default requestTimeout. */
const GLIDE_REQUEST_TIMEOUT_MS = 250;

interface Queued {
  readonly args: string[];
  /** How long the server may hold its reply by design: WAIT's timeout (GLIDE adds it to a lone WAIT's bound, not to a pipeline's). */
  readonly blocksMs: number;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export function glidePipelineSender(client: GlidePipelining, Batch: GlideBatchClass): CommandSender {
  let queue: Queued[] = [];

  /** Ends the connection (see above). */
  const quit = oncePerBound(() => {
    client.customCommand(['QUIT']).catch(() => undefined); // it fails as the connection closes
  });

  const flush = () => {
    const batch = queue;
    if (batch.length === 0) return; // sent already: it filled up before the end of the tick
    queue = [];
    const pipeline = new Batch(false);
    for (const command of batch) pipeline.customCommand(command.args);
    const nonce = pairingNonce();
    pipeline.customCommand(['PING', nonce]);
    let blocksMs = 0;
    for (const command of batch) blocksMs = Math.max(blocksMs, command.blocksMs);
    const requestTimeout = client.config?.requestTimeout;
    const bound = (typeof requestTimeout === 'number' ? requestTimeout : GLIDE_REQUEST_TIMEOUT_MS) + blocksMs;
    client.exec(pipeline, false, blocksMs > 0 ? { timeout: bound } : undefined).then(
      (replies) => {
        if (!replies || replies.length !== batch.length + 1 || !echoes(replies[batch.length], nonce)) {
          quit();
          const error = connectionClosed();
          for (const command of batch) command.reject(error);
          return;
        }
        for (let index = 0; index < batch.length; index++) {
          const reply = replies[index];
          if (reply instanceof Error) batch[index]!.reject(reply);
          else batch[index]!.resolve(reply);
        }
      },
      (error: unknown) => {
        if (isTimeoutError(error)) quit();
        for (const command of batch) command.reject(error);
      },
    );
  };

  return {
    send: (name, args) =>
      new Promise((resolve, reject) => {
        if (queue.length === 0) process.nextTick(flush);
        const blocksMs = name === 'wait' ? Number(args[1]) || 0 : 0;
        queue.push({ args: [name.toUpperCase(), ...args.map(String)], blocksMs, resolve, reject });
        // A few at a time, as command-batch.ts writes them: a pipeline's callers wait for its last reply.
        if (queue.length >= MAX_BATCH) flush();
      }),
  };
}

/**
 * `act`, done at most once per COMMAND_TIMEOUT_MS (calls in between do nothing): a QUIT each for every
 * command in flight on a connection would close the new connection too (see above).
 */
export function oncePerBound<Args extends unknown[]>(act: (...args: Args) => void): (...args: Args) => void {
  let doneAt = Number.NEGATIVE_INFINITY;
  return (...args) => {
    const now = Date.now();
    if (now - doneAt < COMMAND_TIMEOUT_MS) return;
    doneAt = now;
    act(...args);
  };
}
