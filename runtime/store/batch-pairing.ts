// A batch's commands written with the PING that shows their replies are their own (pairing-ping.ts
// says why one is needed): on one connection a PING after them, on a Cluster one on each node they
// went to. command-batch.ts decides what goes in a batch and when; this file, how a batch's replies
// are handed on.
import type { Cluster, Redis } from 'ioredis';
import { echoes, pairingNonce } from './pairing-ping';

type Reply = unknown;

/** A command of a batch, until its reply is handed on or it fails. */
export interface Queued {
  readonly name: string;
  readonly args: readonly (string | number)[];
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: unknown) => void;
  /** The ioredis Command it was written as (none when sent through call() or a pipeline). */
  command?: object;
}

/**
 * Where the commands of a batch written on one connection deliver their replies, by their index in
 * the batch (its PING last).
 */
export interface ReplySink {
  replied(index: number, reply: Reply): void;
  failed(index: number, error: unknown): void;
}

/** What writing a batch needs of command-batch.ts. */
export interface BatchWriter {
  /** Writes `command` through the client (a Cluster routes it), or on one of its connections. */
  write(command: Queued, on?: Redis): Promise<Reply>;
  /** Writes `command` on the client's one connection; its reply or failure goes to `sink` under `index`. */
  writeTo(command: Queued, sink: ReplySink, index: number): void;
  /** `connection`'s replies went astray: it is made again if `stream` is still its socket; the error its commands fail with. */
  unpaired(connection: Redis, stream: Redis['stream'] | undefined): Error;
}

/** An ioredis Command made by the batch: it counts how often ioredis wrote it (command-batch.ts). */
export interface CountedWrites {
  writes: number;
}

/** A command's slot before its reply came: no reply is this object. */
const NOT_ANSWERED: Reply = Symbol('not answered');

const noop = (): void => undefined;

/** A PING of the batch's own: it joins the batch, so a close, the bound and gaveUp deal with it as with the others. */
function pingOf(batch: Queued[]): { ping: Queued; nonce: string } {
  const nonce = pairingNonce();
  const ping: Queued = { name: 'ping', args: [nonce], resolve: noop, reject: noop };
  batch.push(ping);
  return { ping, nonce };
}

/**
 * One connection: the batch, then a PING with a nonce; each command's reply is handed on once the
 * PING came back with its own. An error reply fails its command at once: a failure is safe to
 * report whichever command it answered. The PING answered with anything else: the connection is
 * made again, and every command of the batch fails as on a cut. Settles, never rejects, once the
 * PING is answered.
 */
export function writePaired(batch: Queued[], connection: Redis, writer: BatchWriter): Promise<unknown> {
  return new Promise<void>((done) => {
    // Its PING joins the batch, after its commands.
    const replies = new PairedReplies(batch, connection, writer, done);
    for (let index = 0; index < batch.length; index++) writer.writeTo(batch[index]!, replies, index);
  });
}

/** The replies of a batch on one connection, held until its PING shows they are its own (writePaired). */
class PairedReplies implements ReplySink {
  private readonly nonce: string;
  private readonly replies: Reply[];
  /** The socket the batch went out on: the one made again if its replies went astray. */
  private readonly stream: Redis['stream'] | undefined;

  constructor(
    private readonly batch: Queued[],
    private readonly connection: Redis,
    private readonly writer: BatchWriter,
    private readonly done: () => void,
  ) {
    this.replies = new Array<Reply>(batch.length).fill(NOT_ANSWERED);
    this.stream = connection.stream;
    this.nonce = pingOf(batch).nonce;
  }

  replied(index: number, reply: Reply): void {
    if (index < this.replies.length) {
      this.replies[index] = reply;
      return;
    }
    if (!echoes(reply, this.nonce)) return this.failAll(this.writer.unpaired(this.connection, this.stream));
    for (let at = 0; at < this.replies.length; at++) {
      const answer = this.replies[at];
      if (answer !== NOT_ANSWERED) this.batch[at]!.resolve(answer);
    }
    this.done();
  }

  failed(index: number, error: unknown): void {
    if (index < this.replies.length) this.batch[index]!.reject(error);
    else this.failAll(error);
  }

  private failAll(error: unknown): void {
    for (const command of this.batch) command.reject(error);
    this.done();
  }
}

/** Whether ioredis wrote `command` once only (none of ours: not known, so not). */
function writtenOnce(command: Queued): boolean {
  return (command.command as CountedWrites | undefined)?.writes === 1;
}

/** A Cluster node's PING after a batch's commands there. */
interface NodeCheck {
  /** Set when the PING's reply came: a command of the node answered later was redirected. */
  answered: boolean;
  /** Resolves when the PING came back with its own nonce. */
  paired: Promise<void>;
}

/** An ioredis commandQueue, read from its newest entry back. */
interface PeekableQueue {
  readonly length: number;
  peekAt(index: number): { command: object } | undefined;
}

/**
 * A Cluster: each node that was given commands of the batch gets a PING after them, in the same
 * write, and a command's reply is handed on once that PING came back with its own nonce — if the
 * reply came first and the command was not redirected, so on that connection, in order. A command
 * not found on a node's connection (held in an offline queue, or sent through call()), redirected,
 * or answered after its node's PING is checked once its reply is in, by a PING on every node
 * whose connection is up then (checkEveryNode): the reply came on one of them. Settles, never
 * rejects, once every command is handed on or failed.
 */
export function writePairedOnNodes(batch: Queued[], cluster: Cluster, writer: BatchWriter): Promise<unknown> {
  const written = batch.map((command) => writer.write(command));
  const indexOf = new Map<object, number>();
  batch.forEach((command, index) => {
    if (command.command) indexOf.set(command.command, index);
  });
  const checks: Array<NodeCheck | undefined> = new Array<NodeCheck | undefined>(batch.length);
  if (indexOf.size > 0)
    for (const node of cluster.nodes('master')) {
      const queue = (node as unknown as { commandQueue?: PeekableQueue }).commandQueue;
      if (!queue) continue;
      let check: NodeCheck | undefined;
      // This batch's commands are the last the node was given: nothing else wrote in between.
      for (let at = queue.length - 1; at >= 0; at--) {
        const index = indexOf.get(queue.peekAt(at)?.command as object);
        if (index === undefined) break;
        check ??= nodeCheck(node, batch, writer);
        checks[index] = check;
      }
    }
  return Promise.all(
    written.map((reply, index) => {
      const command = batch[index]!;
      return reply.then((answer) => {
        const check = checks[index];
        // A command the Cluster wrote again (a redirection, a retry) was answered on another
        // connection, whatever order the replies came in.
        const verified =
          check && !check.answered && writtenOnce(command) ? check.paired : checkEveryNode(cluster, writer);
        return verified.then(() => command.resolve(answer), command.reject);
      }, command.reject);
    }),
  );
}

/** A PING on `node` after the batch's commands just written there. */
function nodeCheck(node: Redis, batch: Queued[], writer: BatchWriter): NodeCheck {
  const stream = node.stream;
  const { ping, nonce } = pingOf(batch);
  const check: NodeCheck = { answered: false, paired: Promise.resolve() };
  check.paired = writer.write(ping, node).then((reply) => {
    check.answered = true;
    if (!echoes(reply, nonce)) throw writer.unpaired(node, stream);
  });
  check.paired.catch(noop); // its commands may all have failed meanwhile
  return check;
}

/** A PING on every node of the Cluster whose connection is up; rejects unless each came back with its own nonce. */
function checkEveryNode(cluster: Cluster, writer: BatchWriter): Promise<void> {
  const nodes = cluster.nodes('all').filter((node) => node.status === 'ready' && node.stream);
  return Promise.all(
    nodes.map((node) => {
      const stream = node.stream;
      const { ping, nonce } = pingOf([]);
      return writer.write(ping, node).then((reply) => {
        if (!echoes(reply, nonce)) throw writer.unpaired(node, stream);
      });
    }),
  ).then(noop);
}
