// The store's commands of one tick, written to Redis together, a few at a time.
//
// Why together: on a busy process much of a lock's cost is not Redis and not our code but the
// socket write of each command — one system call apiece (half the CPU of an uncontended run,
// measured with --cpu-prof). Many callers locking at once send their SETs and releases in the same
// tick; gathered, they cost one write.
//
// Why a few at a time (MAX_BATCH): a whole tick's commands in one write — what ioredis's
// `enableAutoPipelining` does — make Redis and this process take turns instead of working at once.
// The commands wait until every caller of the tick has run, Redis then answers them all together,
// and each pipeline's callers wait for its last answer. Measured with 64 callers on their own keys
// (Node 24, 2 cores): a tick per write made 0.75× the throughput of plain commands, one write per
// 16 commands 1.3×, with less CPU than either. So a batch is written as soon as it holds
// MAX_BATCH commands, the rest at the end of the tick; and each command is answered as soon as
// its own reply comes (the batch's commands are written as one by corking the socket, not as a
// pipeline, whose callers would wait for its last reply). A client that auto-pipelines (its own
// option) would hold the commands to the end of the tick again: so each is handed to the client's
// sendCommand, where its own methods end, past the auto-pipelining they go through first — with a
// Command of the ioredis copy that made the client (client-shape.ts). Should that class not be
// found, an auto-pipelining client is given the batch as one explicit pipeline, written at once.
//
// What it does not change: each command is still its own command, answered and failed on its
// own (an error fails only the caller it belongs to), with the client's command timeout; they
// leave in the order they were given; nothing waits longer than the end of the current tick.
// On a Redis Cluster client the batch is the same, its commands each routed by the client to its
// slot's node as ever (with its redirections): the primaries' sockets are corked around the batch,
// so each node gets its share of it in one write. (Not a pipeline: a Cluster pipeline must keep to
// one slot.)
//
// And a bound on each command: the client's own `commandTimeout`, or the store's when the client
// has none. A client the user passes in keeps its options, and ioredis's default is no command
// timeout: a Redis that takes commands and never answers (paused, swapped out, a network dropping
// packets) would hold a lock attempt, and its caller, forever — past the caller's wait bound. A
// command given up on may still be applied later: that is any lost answer's case, and is handled as
// one (one token per caller, see lock/acquire.ts). One timer per write, not per command: ioredis
// starts a timer for each command of a client with a commandTimeout (cleared at the answer; a
// command that fails otherwise keeps its timer until it fires), so the batch's commands, built
// here, start none of their own (boundedByTheBatch) and the write's one timer bounds them with the
// client's timeout.
//
// And a connection that closes fails at once the commands written on it. ioredis, told not to send
// them again after a reconnect (autoResendUnfulfilledCommands: false, as the runtime's own
// connections are), drops them without a word: each would wait out its command timeout, two
// seconds, while the connection is back in 50 ms — a cut connection would cost every attempt and
// release in flight two seconds, past a short wait bound. Failed at once, an attempt is made again
// when the connection is back (lock/acquire.ts), a release is sent again (lock/clean-up.ts). A
// command still waiting to be written (the client was not ready) stays queued: ioredis writes it
// on the new connection. Which is which is read at the close, not when the command is given to the
// client: one given while the client connects waits in ioredis's offline queue and is written when
// the connection is ready — the first command of a process, a command during a reconnect — and a
// cut after that must fail it as at once as one written on a warm connection. So every command is
// watched from the start, and a close fails those not in the offline queue.
//
// On a connection ioredis SELECTs a database on, no command is left to the offline queue: ioredis
// would write it after its own SELECT of the database, unchecked, and a refused SELECT (an ACL without
// it, a server with fewer databases) would leave it in database 0 — or before it: a client moved by
// select() SELECTs its database only once the new connection is ready, after the commands held for
// it. redis-health.ts checks each connection's database before a command goes out; one the client
// would hold for its next connection fails as on a cut, and is made again once that connection is
// checked. Which database is read at each write that would be held, not once: a select() of the
// user's moves the client at any time (ioredis-client.ts, selectsDatabase).
//
// And a reply can be lost while its connection stays up (dropped by a proxy or middlebox in front of
// Redis): then every later reply goes to the command sent before it (pairing-ping.ts). So on one
// connection each write ends with a PING carrying a nonce, and the batch's replies are handed on only
// once it came back with its own (batch-pairing.ts); answered with anything else, the connection is
// dropped and made again (as after a cut, above): every command written on it fails and is made or
// sent again on the new one. The same for the caller's client as for the runtime's own: its replies, its user's
// commands' too, are no longer paired right, and ioredis makes the connection again as after a cut,
// with its options, its database, its subscriptions (autoResubscribe), its name. A batch unanswered
// within its bound on a connection still up is met the same way (reconnectUnpaired): its PING may be
// the reply lost, with no later command to show it. A command that was merely slow (a loaded server,
// CLIENT PAUSE, a long script) looks the same there: the reconnect then costs a round of commands made
// again, no more; and it is done at most once per COMMAND_TIMEOUT_MS for a connection, so the other
// commands that time out in the same stall cost no more reconnects. On a Cluster each node the batch
// went to gets its PING after its share; a command written again elsewhere by a redirection is
// checked by a PING on every connected node once its reply is in.
//
// And on one connection a command of the batch makes no promise of its own: ioredis hands its reply
// to the batch's sink directly (delivering), and the caller's promise is the only one a command costs.
import type { Cluster, Redis } from 'ioredis';
import { libraryExport } from './client-shape';
import { commandTimeoutOf, isCluster, selectsDatabase } from './ioredis-client';
import { setTimer } from '../base/timer-delay';
import {
  type BatchWriter,
  type CountedWrites,
  type Queued,
  type ReplySink,
  writePaired,
  writePairedOnNodes,
} from './batch-pairing';
import { echoes, pairingNonce } from './pairing-ping';

/**
 * How long a command may wait for its answer, on every connection: the `commandTimeout` of the
 * ones the runtime opens, the store's own bound on a caller's client that has none.
 */
export const COMMAND_TIMEOUT_MS = 2_000;

/**
 * A command failed because its connection closed, worded as ioredis words it: redis-health.ts reads
 * the wording as an unreachable server, and so the attempt is made again.
 */
export const connectionClosed = (): Error => new Error('Connection is closed.');

/** A command given up on after `ms` without an answer, worded as the clients word it (read the same way). */
export const commandTimedOut = (ms: number, cause?: unknown): Error =>
  new Error(`Command timed out after ${ms} ms`, cause === undefined ? undefined : { cause });

/**
 * The most commands written as one to a connection: see above. A Cluster client's batch goes to
 * its primaries, each its share (keys spread evenly over the slots): so its batch holds this many
 * per primary, and each node still gets about this many in one write.
 */
export const MAX_BATCH = 16;

type Reply = unknown;

/**
 * What the store reads of an ioredis connection's queues: of commands written and waiting for
 * replies (commandQueue), of commands waiting for the connection to be ready (offlineQueue).
 */
interface ReplyQueue {
  readonly length: number;
  toArray(): Array<{ command: object }>;
}

/** The commands `connection` holds to write on its next connection (none: an empty set). */
function offlineCommands(connection: Redis): ReadonlySet<object> {
  const queue = (connection as unknown as { offlineQueue?: ReplyQueue }).offlineQueue;
  if (!queue || queue.length === 0) return NO_COMMANDS;
  return new Set(queue.toArray().map((entry) => entry.command));
}

const NO_COMMANDS: ReadonlySet<object> = new Set();

/** An ioredis queue of commands as the store edits it (a denque). */
interface EditableQueue extends ReplyQueue {
  clear(): void;
  push(entry: { command: object }): void;
}

/**
 * Takes `failed` out of the commands ioredis writes again on its next connection: a client with
 * autoResendUnfulfilledCommands (ioredis's default, a caller's client may have it) keeps what its
 * closed connection left unanswered and sends it after its own SELECT. A command the store failed
 * at the close has been made again or given up on by its caller; sent again it could take a key
 * after its caller gave up, or — the SELECT refused — take it in database 0. ioredis moves the
 * closed connection's queue aside before it says 'close' (on the next tick), and writes it after the
 * reconnect's delay, so it is still there to edit.
 */
function keepFromResend(connection: Redis, failed: ReadonlySet<object>): void {
  const queue = (connection as unknown as { prevCommandQueue?: EditableQueue | null }).prevCommandQueue;
  if (!queue || queue.length === 0 || failed.size === 0) return;
  const kept = queue.toArray().filter((entry) => !failed.has(entry.command));
  if (kept.length === queue.length) return;
  queue.clear();
  for (const entry of kept) queue.push(entry);
}

/** Whether ioredis writes a command given now on the connection open now; else it holds it for the next. */
function writesNow(connection: Redis): boolean {
  return connection.status === 'ready' && connection.stream?.writable === true;
}

/** When each connection was last made again for a lost reply (reconnectUnpaired). */
const reconnectedAt = new WeakMap<Redis, number>();

/**
 * Whether `connection`, still up, waits for a reply to a command of `batch` (to any command, when the
 * batch's were not built here): a reply lost, or late. A connection made again since has a new queue.
 */
function awaitsReply(connection: Redis, batch: readonly Queued[]): boolean {
  const queue = (connection as unknown as { commandQueue?: ReplyQueue }).commandQueue;
  if (connection.status !== 'ready' || !queue || queue.length === 0) return false;
  const commands = new Set(batch.map((queued) => queued.command));
  if (commands.has(undefined)) return true;
  return queue.toArray().some((entry) => commands.has(entry.command));
}

/**
 * Drops the connection so that ioredis makes it again, as after a cut (see above), at most once per
 * command bound: the commands of the same stall that time out after it were on the connection dropped.
 * Its socket is destroyed rather than ended: an ended one still reads the replies already on their
 * way, which ioredis would pair one off until the close.
 */
function reconnectUnpaired(connection: Redis): void {
  const now = Date.now();
  if (now - (reconnectedAt.get(connection) ?? Number.NEGATIVE_INFINITY) < COMMAND_TIMEOUT_MS) return;
  reconnectedAt.set(connection, now);
  if (connection.stream) connection.stream.destroy();
  else connection.disconnect(true);
}

export interface CommandSender {
  send(name: string, args: readonly (string | number)[]): Promise<Reply>;
  /**
   * When there is one, the sender's own bound: every command it is given settles, answered or
   * failed, within this long of being given (ScriptedLockStore.settlesWithin).
   */
  readonly boundMs?: number;
  /**
   * Runs a Lua script by its hash, loading it when the server lacks it, for a client that does
   * that itself (GLIDE: glide-client.ts); else scripts/lua-script.ts sends EVALSHA and EVAL.
   */
  script?(source: string, sha1: string, keys: readonly string[], args: readonly (string | number)[]): Promise<Reply>;
  /** Takes off what the sender listens to on the client, when the store closes (client-listeners.ts). */
  close?(): void;
}

/** Sends a tick's commands a few at a time. `timeoutMs` bounds each, for a client without a `commandTimeout`. */
export function commandSender(client: Redis | Cluster, timeoutMs?: number): CommandSender {
  return new CommandBatch(client, timeoutMs);
}

/**
 * Rejects the commands of one write once `ms` passed; the returned timer is cleared when they settle.
 * `gaveUp` runs first: a connection it drops takes no command its callers make again.
 */
function rejectLate(rejects: readonly ((error: Error) => void)[], ms: number, gaveUp: () => void): NodeJS.Timeout {
  const timer = setTimer(() => {
    gaveUp();
    const error = commandTimedOut(ms);
    for (const reject of rejects) reject(error);
  }, ms);
  // A command pending on the caller's client keeps the process up by itself; its bound need not.
  timer.unref();
  return timer;
}

/** ioredis's Command, built with the options its `call` gives one (replies as strings, the client's keyPrefix). */
type CommandClass = new (
  name: string,
  args: readonly (string | number)[],
  options: { replyEncoding: 'utf8'; keyPrefix?: string },
) => IoredisCommand;

/** What the batch reads of an ioredis Command and overrides on its own (see delivering). */
interface IoredisCommand {
  readonly promise: Promise<Reply>;
  readonly name: string;
  args: unknown[];
  transformed: boolean;
  isResolved: boolean;
  /** ioredis 6: set as the command settles; its timers cleared then. */
  isSettled?: boolean;
  _clearTimers?(): void;
  setTimeout: (ms: number) => void;
  toWritable: (socket: unknown) => unknown;
  initPromise(): void;
  stringifyArguments(): void;
  transformReply(reply: unknown): Reply;
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

/** A Command of the batch on one connection: it hands its reply to its batch's sink (see delivering). */
interface DeliveringCommand extends IoredisCommand {
  sink: ReplySink;
  index: number;
}

type DeliveringClass = new (...args: ConstructorParameters<CommandClass>) => DeliveringCommand;

/** ioredis's table of argument transformers, a static of its Command class. */
interface CommandStatics {
  readonly _transformer?: { readonly argument: Record<string, ((args: unknown[]) => unknown[]) | undefined> };
}

/** The client's Command, with no timer of its own: the batch's write bounds it (see above). */
function boundedByTheBatch(Command: CommandClass): CommandClass {
  const BoundedCommand = class extends Command {};
  // What ioredis calls on each command of a client with a commandTimeout, to start its timer.
  BoundedCommand.prototype.setTimeout = () => undefined;
  return BoundedCommand;
}

/**
 * For a Cluster client, the same counting how often ioredis wrote each command (CountedWrites: a
 * Cluster writes a redirected command again; batch-pairing.ts). On the prototype: a closure set on
 * each command, where ioredis's Cluster sets its own `reject`, kept commands alive past
 * young-generation GCs and doubled a Cluster section's CPU (bench/history.md).
 */
function countingWrites(Command: CommandClass): CommandClass {
  const CountedCommand = class extends Command implements CountedWrites {
    writes = 0;
  };
  // What ioredis calls each time it writes the command to a connection.
  const toWritable = Command.prototype.toWritable;
  CountedCommand.prototype.toWritable = function (this: CountedWrites, socket: unknown) {
    this.writes++;
    return toWritable.call(this, socket);
  };
  return CountedCommand;
}

/**
 * For one connection, the same with no promise of its own: ioredis settles a command by calling its
 * `resolve` or `reject`, which hand the reply to the batch's sink (batch-pairing.ts) under the
 * command's index. Its Command makes a promise in its constructor (initPromise) and the batch
 * chained a reaction on it to pass the reply on: two promises and two turns of the microtask queue
 * a command, four a section, for an answer the sink takes at once. On the prototype, as
 * countingWrites says why; the argument transforms initPromise makes are made here as there.
 * Not for a Cluster, where it was tried and measured level (bench/history.md, "An ioredis Cluster's
 * commands without their promises"): there a command referring to its batch's sink kept the batch
 * alive past young-generation GCs (how ioredis's Cluster holds its commands that long is not pinned
 * down), so a Cluster's commands settle through their promises (writePairedOnNodes) and refer to nothing.
 */
function delivering(Command: CommandClass): DeliveringClass {
  const statics = Command as unknown as CommandStatics;
  return class extends Command implements DeliveringCommand {
    sink: ReplySink = NO_SINK;
    index = 0;

    override initPromise(): void {
      if (this.transformed) return;
      this.transformed = true;
      const transform = statics._transformer?.argument[this.name];
      if (transform) this.args = transform(this.args);
      this.stringifyArguments();
    }

    override resolve(reply: unknown): void {
      let answer: Reply;
      try {
        answer = this.transformReply(reply);
      } catch (error) {
        this.reject(error);
        return;
      }
      this.settled();
      this.isResolved = true;
      this.sink.replied(this.index, answer);
    }

    override reject(error: unknown): void {
      this.settled();
      this.sink.failed(this.index, error);
    }

    /** As ioredis's own settling does (6 marks the command settled and clears its timers). */
    private settled(): void {
      this.isSettled = true;
      this._clearTimers?.();
    }
  };
}

/** Whether `Command` is built as delivering() expects: else the batch passes replies on through its promises. */
function deliversAsExpected(Command: CommandClass): boolean {
  const prototype = Command.prototype as Partial<Record<keyof IoredisCommand, unknown>>;
  return (
    typeof prototype.initPromise === 'function' &&
    typeof prototype.transformReply === 'function' &&
    typeof prototype.stringifyArguments === 'function' &&
    typeof (Command as unknown as CommandStatics)._transformer?.argument === 'object'
  );
}

/** A delivering Command's sink until it is given its batch's. */
const NO_SINK: ReplySink = { replied: () => undefined, failed: () => undefined };

class CommandBatch implements CommandSender, BatchWriter {
  private queue: Queued[] = [];
  /** The client's own Command class: commands handed to sendCommand skip its auto-pipelining. */
  private readonly Command: CommandClass | undefined;
  /** On one connection, the same without a promise of its own (delivering). */
  private readonly Delivering: DeliveringClass | undefined;
  /** What the client's call() gives each Command it builds: replies as strings, its keyPrefix. */
  private readonly commandOptions: { replyEncoding: 'utf8'; keyPrefix?: string };
  /** The client holds each command it is given to the end of the tick (ioredis's enableAutoPipelining). */
  private readonly autoPipelines: boolean;
  /** A Cluster client: its commands go to several nodes, answered in no order between them. */
  private readonly cluster: boolean;
  /** A batch is written once it holds this many: MAX_BATCH per connection it goes to (see MAX_BATCH). */
  private maxBatch = MAX_BATCH;
  /**
   * Batches given to the client and not answered yet, oldest first: a close fails their commands
   * written on the connection closed (see above). The listener is on the client only while there are
   * some. An array, not a Set: with a Set, whose entries came and went thousands of times a second,
   * each young-generation GC still reached 1.7 MB of answered batches (their commands, arguments and
   * strings), moved them to the old generation and paused 3.6 ms; with an array, 0.15 MB and 0.5 ms
   * (the store alone, 64 callers on their own keys, Node 24, 2026-11-26). A woven lock's p99 went
   * from 3.7 to 1.9 ms (bench/history.md).
   */
  private readonly written: Array<readonly Queued[]> = [];
  private readonly onClose = (): void => {
    const error = connectionClosed();
    // ioredis writes these on the next connection: they stay, and are watched there.
    const offline = offlineCommands(this.client as Redis);
    const waits = (queued: Queued) => queued.command !== undefined && offline.has(queued.command);
    const waiting = offline.size === 0 ? [] : this.written.filter((batch) => batch.some(waits));
    const failed = new Set<object>();
    for (const batch of this.written.splice(0, this.written.length, ...waiting))
      for (const command of batch) {
        if (waits(command)) continue;
        command.reject(error);
        if (command.command) failed.add(command.command);
      }
    keepFromResend(this.client as Redis, failed);
    if (this.written.length === 0) this.client.off('close', this.onClose);
  };

  /** The batch was answered, or failed: one connection answers in order, so it is the oldest as a rule. */
  private answered(batch: readonly Queued[]): void {
    const at = this.written.indexOf(batch);
    if (at < 0) return; // failed by a close already
    this.written.splice(at, 1);
    if (this.written.length === 0) this.client.off('close', this.onClose);
  }

  /** How long the commands of a write may wait for their answers; none: the client's timers bound them. */
  private readonly timeoutMs: number | undefined;

  /** The write's timer fails every command of it at timeoutMs, whatever the client does (rejectLate). */
  get boundMs(): number | undefined {
    return this.timeoutMs;
  }

  constructor(
    private readonly client: Redis | Cluster,
    timeoutMs: number | undefined,
  ) {
    const Command = libraryExport<CommandClass>(client, 'Command');
    this.cluster = isCluster(client);
    // One connection pairs replies by their order alone: only a Cluster's commands count their writes.
    const Bounded = Command && boundedByTheBatch(Command);
    this.Command = Bounded && this.cluster ? countingWrites(Bounded) : Bounded;
    this.Delivering = Bounded && !this.cluster && deliversAsExpected(Bounded) ? delivering(Bounded) : undefined;
    // Without the Command (call()), the client's own timers bound its commands.
    this.timeoutMs = Command ? commandTimeoutOf(client) || timeoutMs : timeoutMs;
    this.commandOptions = { replyEncoding: 'utf8', keyPrefix: client.options?.keyPrefix };
    this.autoPipelines = !this.Command && !this.cluster && client.options?.enableAutoPipelining === true;
  }

  send(name: string, args: readonly (string | number)[]): Promise<Reply> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) process.nextTick(() => this.flush());
      this.queue.push({ name, args, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flush();
    });
  }

  private flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return; // written already: it filled up before the end of the tick
    this.queue = [];
    if (!this.cluster && !writesNow(this.client as Redis) && selectsDatabase(this.client)) {
      const error = connectionClosed(); // as at a close
      for (const command of batch) command.reject(error);
      return;
    }
    const timer = this.timeoutMs
      ? rejectLate(
          batch.map((command) => command.reject),
          this.timeoutMs,
          () => this.gaveUp(batch),
        )
      : undefined;
    // On a Cluster, the client's own redirections and retries deal with a closed node connection. A
    // command without its Command (call(), a pipeline) cannot be found in the offline queue at a
    // close: it is watched only when written at once, on a ready connection.
    const watched = !this.cluster && (this.Command !== undefined || this.client.status === 'ready');
    const sent = batch.length > 1 && this.autoPipelines ? this.sendPipeline(batch) : this.sendCorked(batch);
    if (watched) {
      if (this.written.length === 0) this.client.on('close', this.onClose);
      this.written.push(batch);
    }
    if (timer || watched)
      void sent.finally(() => {
        clearTimeout(timer);
        if (watched) this.answered(batch);
      });
  }

  /** The batch went unanswered within its bound: a connection still waiting for its replies is made again (see above). */
  private gaveUp(batch: readonly Queued[]): void {
    const connections = isCluster(this.client) ? this.client.nodes() : [this.client];
    for (const connection of connections) if (awaitsReply(connection, batch)) reconnectUnpaired(connection);
  }

  /**
   * Each command on its own, answered on its own; the sockets corked so they leave in one write
   * (on a Cluster, one per node). On one connection, a pairing PING follows them in the same write
   * (batch-pairing.ts). Settles once they are all answered; never rejects.
   */
  private sendCorked(batch: Queued[]): Promise<unknown> {
    // A connection's write always holds two commands at least: the batch's and its PING.
    const streams = this.streams();
    if (this.cluster && streams.length > 0) this.maxBatch = MAX_BATCH * streams.length;
    for (const stream of streams) stream.cork();
    try {
      return this.cluster
        ? writePairedOnNodes(batch, this.client as Cluster, this)
        : writePaired(batch, this.client as Redis, this);
    } finally {
      for (const stream of streams) stream.uncork();
    }
  }

  /** `connection`'s replies went astray (batch-pairing.ts): it is made again, if `stream` is still its socket. */
  unpaired(connection: Redis, stream: Redis['stream'] | undefined): Error {
    if (stream && connection.stream === stream) {
      reconnectedAt.set(connection, Date.now());
      stream.destroy();
    }
    return connectionClosed();
  }

  /** The sockets the batch's commands are written to: a Cluster's primaries' (its writes go there). */
  private streams(): Array<{ cork(): void; uncork(): void }> {
    if (!isCluster(this.client)) return this.client.stream ? [this.client.stream] : [];
    return this.client.nodes('master').flatMap((node) => (node.stream ? [node.stream] : []));
  }

  writeTo(command: Queued, sink: ReplySink, index: number): void {
    if (this.Delivering) {
      const written = new this.Delivering(command.name, command.args, this.commandOptions);
      written.sink = sink;
      written.index = index;
      command.command = written;
      this.client.sendCommand(written as never);
      return;
    }
    this.write(command).then(
      (reply) => sink.replied(index, reply),
      (error: unknown) => sink.failed(index, error),
    );
  }

  /** Writes `command` through the client (a Cluster routes it), or on one of its connections. */
  write(command: Queued, on: Redis | Cluster = this.client): Promise<Reply> {
    if (!this.Command) return on.call(command.name, ...command.args);
    // No stack per command, even for a client that asks its own for one (showFriendlyErrorStack): taken
    // here, in the batch's flush, it would show the batch's frames, not a caller's, at ~9 µs a command
    // (bench/history.md, "A user's client with friendly error stacks").
    const written = new this.Command(command.name, command.args, this.commandOptions);
    command.command = written;
    return on.sendCommand(written as never) as Promise<Reply>;
  }

  /** The batch as one pipeline, its pairing PING last (batch-pairing.ts says why). */
  private sendPipeline(batch: readonly Queued[]): Promise<unknown> {
    const connection = this.client as Redis;
    const stream = connection.stream;
    const pipeline = connection.pipeline();
    for (const command of batch) pipeline.call(command.name, ...command.args);
    const nonce = pairingNonce();
    pipeline.call('ping', nonce);
    return pipeline.exec().then(
      (replies) => {
        const [pingError, echo] = replies?.[batch.length] ?? [new Error('lockweave: no reply for a pipelined PING')];
        if (pingError) {
          for (const command of batch) command.reject(pingError);
          return;
        }
        if (!echoes(echo, nonce)) {
          const error = this.unpaired(connection, stream);
          for (const command of batch) command.reject(error);
          return;
        }
        batch.forEach((command, index) => {
          const [error, reply] = replies?.[index] ?? [
            new Error('lockweave: no reply for a pipelined command'),
            undefined,
          ];
          if (error) command.reject(error);
          else command.resolve(reply);
        });
      },
      (error: unknown) => batch.forEach((command) => command.reject(error)),
    );
  }
}
