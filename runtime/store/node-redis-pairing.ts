// A node-redis connection's replies checked against the commands they answer (pairing-ping.ts
// says why they may not): a node-redis client's one connection, or one primary's connection of a
// node-redis cluster (node-redis-cluster.ts), each with its own ReplyPairing.
import { RedisConnectionError } from '../base/errors';
import { setTimer } from '../base/timer-delay';
import { isTimeoutError } from './client-shape';
import { ClientListeners, type ClientEvents } from './client-listeners';
import { COMMAND_TIMEOUT_MS, commandTimedOut, connectionClosed } from './command-batch';
import { echoes, pairingNonce } from './pairing-ping';

/** What a ReplyPairing uses of a node-redis client (v5, v6; a cluster's node client is one too). */
export interface PairedClient {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
}

// Each command gets the runtime's bound (COMMAND_TIMEOUT_MS): one timer for a tick's commands
// (thisTick), which rejects those still unanswered. node-redis keeps a command sent while the
// connection is down in its offline queue until it reconnects (v5 has no timeout by default): such
// a command also gets node-redis's own `timeout`, which takes it out of the queue at the bound, so
// it is never written late. One sent while the connection is up gets none (`timeout: 0`, which also
// sets aside v6's default of 5 s): node-redis writes it in the same turn of the event loop
// (setImmediate), and a per-command `timeout` costs an AbortSignal.timeout each, a tenth of a
// section's CPU (bench/history.md, "One bound a tick for node-redis"). Should the connection drop
// within that turn, node-redis writes the command on its next connection, perhaps after its caller
// gave up: a late attempt, whose key (its caller's token) the give-up's leave takes back
// (lock/clean-up.ts), as on ioredis (command-batch.ts).
const OFFLINE = { timeout: COMMAND_TIMEOUT_MS };
/** PINGs unanswered, one each bound, before an open connection is taken as stuck and ended (ReplyPairing.stuck). */
const STUCK_AFTER_PINGS = 3;
const READY = { timeout: 0 };

/** A tick's commands on the connection: their PING, and their one bound. */
interface Tick {
  readonly connection: number;
  /** The PING written after them (thisTick). */
  readonly ping: Promise<void>;
  /** Rejects each command still waiting when the bound passes (a settled one ignores it). */
  readonly waiting: Array<(error: unknown) => void>;
  /** How many of them are unsettled; the bound is cleared at none, once the tick has ended (no command joins after). */
  unsettled: number;
  /** Its PING was sent: no command joins it any more. */
  ended: boolean;
  readonly timer: NodeJS.Timeout;
}

/**
 * Whether replies on the client's connection still answer the commands they are paired with
 * (pairing-ping.ts says why they may not).
 *
 * Each tick's commands are followed by a PING with a nonce, and a command's reply is handed on
 * only once that PING came back with its own nonce. A PING answered with anything else stops the
 * store's commands on that connection, and the store ends it with a QUIT: Redis closes it (whichever
 * command reads the QUIT's reply), node-redis connects again by itself, as after any cut, and a new
 * connection pairs from its first reply. Meanwhile every command fails at once with a
 * RedisConnectionError that is not fatal and says why: callers try again on their schedule. (A
 * client whose reconnectStrategy is false stays closed then, as after a cut: its user connects it.)
 *
 * A command unanswered within the bound on the connection it was written on may have lost its reply
 * with no later command to show it (its own PING may be the one lost): the store's commands on that
 * connection fail at once, not fatally, while a PING, one more each bound, finds out whether the
 * reply was lost — a PING answered with another command's reply, as above: with k replies lost, the
 * (k+1)th PING gets the first one's nonce — or only slow (a loaded server, CLIENT PAUSE, a long
 * script): the PING answered with its own nonce, the store goes on without a reconnect.
 */
export class ReplyPairing {
  /** How many times the connection was made; a command is judged against the one it was written on. */
  private connection = 0;
  /** Set while a reply is overdue on the connection and the PINGs have not settled whether replies pair. */
  private overdue: RedisConnectionError | undefined;
  /** Set once a PING was answered with another command's reply, until the connection is made again (quit). */
  private unpaired: RedisConnectionError | undefined;
  /** The commands sent in this tick, until their PING is sent (at the tick's end). */
  private tick: Tick | undefined;
  private readonly listeners: ClientListeners;

  constructor(
    private readonly client: PairedClient,
    private readonly address: string,
  ) {
    // Every node-redis client is an EventEmitter; the shapes above name only what the store calls.
    this.listeners = new ClientListeners(client as unknown as ClientEvents);
    // node-redis fails every command waiting for a reply when a connection is lost: a new one starts even.
    this.listeners.on('ready', () => {
      this.connection++;
      this.overdue = undefined;
      this.unpaired = undefined;
    });
  }

  /** The store closed: the client is the user's, and keeps no listener of it (client-listeners.ts). */
  close(): void {
    this.listeners.removeAll();
  }

  /** The error a command must fail with at once, if any. */
  get refusal(): RedisConnectionError | undefined {
    return this.unpaired ?? this.overdue;
  }

  /**
   * Sends `command` under its tick's bound: rejected once unanswered for it; if it was on the open
   * connection, the PINGs start. Its reply is handed on once the tick's PING echoed.
   */
  send(command: readonly string[]): Promise<unknown> {
    const refusal = this.refusal;
    if (refusal) return Promise.reject(refusal);
    const tick = this.thisTick();
    return this.join(tick, (resolve, reject) => {
      this.client.sendCommand(command, this.client.isReady ? READY : OFFLINE).then(
        (reply) => tick.ping.then(() => resolve(reply), reject),
        (error: unknown) => {
          // node-redis's own timeout ends a command it has not written yet, which a shorter
          // maintenance timeout of its own can do before this bound: the same check runs, at the
          // cost of one PING.
          if (isTimeoutError(error) && this.client.isReady && tick.connection === this.connection) this.replyOverdue();
          reject(error);
        },
      );
    });
  }

  /**
   * Resolves once a PING written after now came back with its own nonce: every reply read on the
   * connection before it answered its own command (a reply that came on it by another way, a
   * cluster's redirection, among them). Bounded and refused as a command is.
   */
  paired(): Promise<void> {
    const refusal = this.refusal;
    if (refusal) return Promise.reject(refusal);
    const tick = this.thisTick();
    return this.join(tick, (resolve, reject) => void tick.ping.then(resolve, reject));
  }

  /**
   * What `start` settles, as one of `tick`'s: rejected by the tick's bound should it not have
   * settled by then. `start` throws only before it settles anything (node-redis refusing a command
   * at once).
   */
  private join<T>(
    tick: Tick,
    start: (resolve: (value: T) => void, reject: (error: unknown) => void) => void,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      tick.waiting.push(reject);
      tick.unsettled++;
      const settled = () => {
        if (--tick.unsettled === 0 && tick.ended) clearTimeout(tick.timer);
      };
      const fail = (error: unknown) => {
        settled();
        reject(error);
      };
      try {
        start((value) => {
          settled();
          resolve(value);
        }, fail);
      } catch (error) {
        fail(error);
      }
    });
  }

  /**
   * This tick's group of commands, made at its first: the bound starts before the command is handed
   * to node-redis (a process paused between the two, a stop or a long GC, would otherwise wake with
   * the caller's bound past and this one not yet running), and the PING is written after the tick's
   * commands (node-redis writes them in the order given) — sent at the end of the tick:
   * process.nextTick runs once the promise reactions ran, so the commands every reply of a read led
   * to share it; a command sent after it joins the next tick's. The PING resolves when it came back
   * with its own nonce; rejects otherwise.
   */
  private thisTick(): Tick {
    if (this.tick) return this.tick;
    const connection = this.connection;
    const ping = new Promise<void>((resolve, reject) => {
      process.nextTick(() => {
        this.tick = undefined;
        tick.ended = true;
        if (tick.unsettled === 0) clearTimeout(tick.timer);
        const nonce = pairingNonce();
        this.client.sendCommand(['PING', nonce], this.client.isReady ? READY : OFFLINE).then((reply) => {
          if (echoes(reply, nonce)) return resolve();
          if (connection === this.connection) this.misrouted(connection);
          reject(this.unpaired ?? connectionClosed());
        }, reject);
      });
    });
    // Its commands may all have failed or been given up on meanwhile: none is left to hear it.
    ping.catch(() => undefined);
    const timer = setTimer(() => {
      if (this.client.isReady && connection === this.connection) this.replyOverdue();
      const error = commandTimedOut(COMMAND_TIMEOUT_MS);
      for (const reject of tick.waiting) reject(error);
    }, COMMAND_TIMEOUT_MS);
    timer.unref();
    const tick: Tick = { connection, ping, waiting: [], unsettled: 0, ended: false, timer };
    this.tick = tick;
    return tick;
  }

  private replyOverdue(): void {
    if (this.overdue || this.unpaired) return;
    this.overdue = new RedisConnectionError(
      `Redis at ${this.address} is unreachable: a reply is overdue on the node-redis client's open connection; ` +
        'lock commands wait until it is known whether its later replies still answer their own commands',
      this.address,
      false,
    );
    this.ping(this.connection);
  }

  /** `unanswered`: the PINGs sent before this one since the reply was overdue, none of them answered. */
  private ping(connection: number, unanswered = 0): void {
    const nonce = pairingNonce();
    this.client.sendCommand(['PING', nonce]).then(
      (reply) => {
        if (connection !== this.connection || !this.overdue) return;
        if (echoes(reply, nonce)) this.overdue = undefined;
        else this.misrouted(connection);
      },
      () => undefined, // the connection was lost: 'ready' starts the next one even
    );
    const again = setTimer(() => {
      if (connection !== this.connection || !this.overdue || this.unpaired || !this.client.isReady) return;
      if (unanswered + 1 < STUCK_AFTER_PINGS) this.ping(connection, unanswered + 1);
      else this.stuck(connection);
    }, COMMAND_TIMEOUT_MS);
    again.unref();
  }

  /**
   * No reply at all for STUCK_AFTER_PINGS bounds on an open connection: one node-redis cannot finish
   * reading (a reply whose length a middlebox garbled, read for ever), or a link that carries nothing
   * back. Waiting longer would keep every lock command refused for good: the connection is ended
   * as an unpaired one is, and node-redis makes it again. (A server paused that long is cut too,
   * and answers on the new connection once it runs.)
   */
  private stuck(connection: number): void {
    this.end(
      connection,
      `no reply came for ${(STUCK_AFTER_PINGS * COMMAND_TIMEOUT_MS) / 1000} s on the node-redis client's open connection`,
    );
  }

  /** Replies on `connection` answer other commands: refused from now, and ended (see above). */
  private misrouted(connection: number): void {
    this.end(
      connection,
      "a reply was lost on the node-redis client's connection, which stayed open (a proxy or middlebox in front " +
        "of Redis dropped it), and node-redis answered later commands with other commands' replies",
    );
  }

  /** Lock commands on `connection` are refused from now, saying `why`, and it is ended (QUIT) for node-redis to make again. */
  private end(connection: number, why: string): void {
    if (this.unpaired) return;
    this.unpaired = new RedisConnectionError(
      `Redis at ${this.address} is unreachable: ${why}: lockweave ended that connection (QUIT) and sends no lock ` +
        'command until node-redis has made it again',
      this.address,
      false,
    );
    this.quit(connection);
  }

  /**
   * QUIT on the unpaired connection, again each bound until node-redis says it is ready on a new
   * one. Only while it is up: one held in node-redis's offline queue would end the next connection.
   */
  private quit(connection: number): void {
    if (connection !== this.connection || !this.unpaired || !this.client.isOpen) return;
    if (this.client.isReady) this.client.sendCommand(['QUIT']).catch(() => undefined); // it fails as the connection closes
    const again = setTimer(() => this.quit(connection), COMMAND_TIMEOUT_MS);
    again.unref();
  }
}
