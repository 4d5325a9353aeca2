// A node-redis client (npm `redis`, v5 and v6) as the store uses it: how it is recognised, how a
// command is sent, how the subscriber of release notices is opened.
//
// Described by shape, not imported: `redis` is an optional peer, and a user without it must
// be able to compile against lockweave's types and load it.
import { RedisConnectionError } from '../base/errors';
import { holdProcess } from '../base/process-hold';
import { hasMethods, isTimeoutError } from './client-shape';
import { ClientListeners, type ClientEvents } from './client-listeners';
import { COMMAND_TIMEOUT_MS, commandTimedOut, connectionClosed, type CommandSender } from './command-batch';
import type { OpenSubscriber } from './redis-notices';
import { setTimer } from '../base/timer-delay';
import { echoes, pairingNonce } from './pairing-ping';

/** What configure() accepts as a node-redis client: `createClient()`'s, connected. */
export interface NodeRedisClientLike {
  readonly isOpen: boolean;
  sendCommand(args: readonly string[], options?: never): Promise<unknown>;
  duplicate(overrides?: never): unknown;
}

/** What the store uses of it (the members every v5 and v6 client has). */
export interface NodeRedisClient extends NodeRedisClientLike {
  readonly isReady: boolean;
  readonly options?: { socket?: { host?: string; port?: number; path?: string; reconnectStrategy?: unknown } };
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  duplicate(overrides?: object): NodeRedisClient;
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  unref(): void;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy(): void;
}

/**
 * A node-redis client, by the members node-redis has and other things passed as `redis` lack:
 * ioredis has no `sendCommand`/`isOpen`, a plain options object no methods, a node-redis pool
 * no `duplicate`, a node-redis cluster its `masters` (isNodeRedisCluster).
 */
export function isNodeRedisClient(value: unknown): value is NodeRedisClient {
  return hasClientShape(value) && !isNodeRedisCluster(value) && !isNodeRedisSentinel(value);
}

/**
 * node-redis's `createSentinel()`: v6's has a client's shape, but its commands may go to a pool of
 * connections, and a store must know which connection made a grant (see LockStore.waitForReplicas).
 */
export function isNodeRedisSentinel(value: unknown): boolean {
  return hasMethods(value, 'sendCommand', 'getMasterNode', 'getSentinelNode');
}

export function isNodeRedisCluster(value: unknown): boolean {
  return hasClientShape(value) && 'masters' in value && 'slots' in value;
}

function hasClientShape(value: unknown): value is NodeRedisClient {
  return hasMethods(value, 'sendCommand', 'duplicate') && typeof value.isOpen === 'boolean';
}

// Each command gets the runtime's bound (COMMAND_TIMEOUT_MS). node-redis keeps a command sent while
// the connection is down in its offline queue until it reconnects (v5 has no timeout by default),
// and a lock attempt must fail rather than hang past its caller's wait bound. A timed-out command
// that was not written yet is taken out of the queue, so it is never sent late. A written one
// node-redis waits for without a bound (it drops its timeout at the write): ReplyPairing bounds it.
const NODE_REDIS_TIMEOUT = { timeout: COMMAND_TIMEOUT_MS };

/**
 * Sends each command alone: node-redis writes the commands of one tick together by itself.
 * Its arguments are strings (it refuses numbers), and a timeout error of v5 has no message, so
 * it is given one the health check (redis-health.ts) reads as a lost connection.
 */
export function nodeRedisSender(client: NodeRedisClient, address: string): CommandSender {
  const pairing = new ReplyPairing(client, address);
  return {
    send: (name, args) => {
      const refusal = pairing.refusal;
      if (refusal) return Promise.reject(refusal);
      return pairing.send([name, ...args.map(String)]).catch(explainTimeout);
    },
    close: () => pairing.close(),
  };
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
class ReplyPairing {
  /** How many times the connection was made; a command is judged against the one it was written on. */
  private connection = 0;
  /** Set while a reply is overdue on the connection and the PINGs have not settled whether replies pair. */
  private overdue: RedisConnectionError | undefined;
  /** Set once a PING was answered with another command's reply, until the connection is made again (quit). */
  private unpaired: RedisConnectionError | undefined;
  /** The PING that follows the commands sent in this tick, until it is sent (at the tick's end). */
  private nextPing: Promise<void> | undefined;
  private readonly listeners: ClientListeners;

  constructor(
    private readonly client: NodeRedisClient,
    private readonly address: string,
  ) {
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
   * Sends `command` with node-redis's timeout, rejected once unanswered for the bound; if it was on
   * the open connection, the PINGs start. The bound starts before the command is handed to
   * node-redis: a process paused between the two (a stop, a long GC) would otherwise wake with the
   * caller's bound past and this one not yet running.
   */
  send(command: readonly string[]): Promise<unknown> {
    const connection = this.connection;
    const paired = this.pingAfterThisTick();
    return new Promise((resolve, reject) => {
      const timer = setTimer(() => {
        if (this.client.isReady && connection === this.connection) this.replyOverdue();
        reject(commandTimedOut(COMMAND_TIMEOUT_MS));
      }, COMMAND_TIMEOUT_MS);
      timer.unref();
      let sent: Promise<unknown>;
      try {
        sent = this.client.sendCommand(command, NODE_REDIS_TIMEOUT);
      } catch (error) {
        clearTimeout(timer);
        reject(error);
        return;
      }
      const fail = (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      };
      sent.then(
        (reply) =>
          paired.then(() => {
            clearTimeout(timer);
            resolve(reply);
          }, fail),
        (error: unknown) => {
          // node-redis's own timeout ends a command it has not written yet (it drops it at the
          // write), which a shorter maintenance timeout of its own can do before this bound: the
          // same check runs, at the cost of one PING.
          if (isTimeoutError(error) && this.client.isReady && connection === this.connection) this.replyOverdue();
          fail(error);
        },
      );
    });
  }

  /**
   * The PING written after this tick's commands (node-redis writes them in the order given): it is
   * sent at the end of the tick (process.nextTick runs once the promise reactions ran, so the
   * commands every reply of a read led to share it); a command sent after it waits for the next.
   * Resolves when it came back with its own nonce; rejects otherwise.
   */
  private pingAfterThisTick(): Promise<void> {
    if (this.nextPing) return this.nextPing;
    const connection = this.connection;
    const ping = new Promise<void>((resolve, reject) => {
      process.nextTick(() => {
        this.nextPing = undefined;
        const nonce = pairingNonce();
        this.client.sendCommand(['PING', nonce], NODE_REDIS_TIMEOUT).then((reply) => {
          if (echoes(reply, nonce)) return resolve();
          if (connection === this.connection) this.misrouted(connection);
          reject(this.unpaired ?? connectionClosed());
        }, reject);
      });
    });
    // Its commands may all have failed or been given up on meanwhile: none is left to hear it.
    ping.catch(() => undefined);
    this.nextPing = ping;
    return ping;
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

  private ping(connection: number): void {
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
      if (connection === this.connection && this.overdue && !this.unpaired && this.client.isReady)
        this.ping(connection);
    }, COMMAND_TIMEOUT_MS);
    again.unref();
  }

  /** Replies on `connection` answer other commands: refused from now, and ended (see above). */
  private misrouted(connection: number): void {
    if (this.unpaired) return;
    this.unpaired = new RedisConnectionError(
      `Redis at ${this.address} is unreachable: a reply was lost on the node-redis client's connection, which stayed ` +
        'open (a proxy or middlebox in front of Redis dropped it), and node-redis answered later commands with ' +
        "other commands' replies: lockweave ended that connection (QUIT) and sends no lock command until " +
        'node-redis has made it again',
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

/** node-redis's timeout error as one the health check reads as a lost connection. */
export function explainTimeout(error: unknown): never {
  if (isTimeoutError(error)) {
    throw commandTimedOut(COMMAND_TIMEOUT_MS, error);
  }
  throw error;
}

/** The longest pause between the subscriber's reconnects (as for connections the runtime opens). */
const SUBSCRIBER_RECONNECT_MAX_MS = 250;

/**
 * The subscriber: a duplicate of the client, unref'd so it never keeps a process alive. node-redis
 * waits between reconnects on a timer that is ref'd, though, so the duplicate reconnects only
 * while someone here waits for notices (whose own timers keep the process up anyway) and
 * otherwise gives up and is dropped (`onGone`); the next listen() opens another. Nor does it
 * retry a first connection that fails: listen() must not hang while Redis is down.
 */
export function nodeRedisSubscriber(client: NodeRedisClient, listening: () => boolean): OpenSubscriber {
  return (onMessage, onGone, onBack) => {
    let everReady = false;
    /** What node-redis subscribes again by itself after a reconnect, before it is ready again. */
    const channels = new Set<string>();
    const reconnectStrategy = (retries: number) =>
      everReady && listening() ? Math.min(50 * (retries + 1), SUBSCRIBER_RECONNECT_MAX_MS) : false;
    const subscriber = client.duplicate({ socket: { ...client.options?.socket, reconnectStrategy } });
    subscriber.unref();
    subscriber.on('ready', () => {
      if (everReady) onBack([...channels]);
      everReady = true;
    });
    // A subscriber that gave up reconnecting is closed (isOpen false) when it reports the error.
    subscriber.on('error', () => {
      if (!subscriber.isOpen) onGone();
    });
    const connected = subscriber.connect();
    connected.catch(() => onGone());
    const onChannelMessage = (message: string, channel: string) => onMessage(channel, message);
    return {
      subscribe: (channel) => {
        channels.add(channel);
        return bounded(
          connected.then(() => subscriber.subscribe(channel, onChannelMessage)),
          () => void subscriber.unsubscribe(channel).catch(() => undefined),
        );
      },
      unsubscribe: (channel) => {
        channels.delete(channel);
        return subscriber.isOpen ? subscriber.unsubscribe(channel) : Promise.resolve();
      },
      close: async () => {
        if (!subscriber.isOpen) return;
        const closing = subscriber.close ?? subscriber.quit;
        // Held up until closed, and bounded: see connection-ref.ts, quitConnection.
        const letGo = holdProcess();
        // destroy() throws when the client closed itself meanwhile (a reconnect given up): then it is closed.
        const destroy = () => {
          if (subscriber.isOpen) subscriber.destroy();
        };
        try {
          await bounded(closing!.call(subscriber), destroy).catch(destroy);
        } finally {
          letGo();
        }
      },
    };
  };
}

/**
 * A SUBSCRIBE sent while the subscriber reconnects waits in its offline queue, with no timeout;
 * the waiter that listens must not wait with it. When it is given up, `undo` unsubscribes (after
 * it, on the same connection), so a late subscription delivers nothing twice. (A close is bounded
 * the same way; its `undo` destroys the connection.)
 */
export function bounded<T>(subscribed: Promise<T>, undo: () => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimer(() => {
      undo();
      reject(new Error(`lockweave: the subscriber got no answer in ${COMMAND_TIMEOUT_MS} ms`));
    }, COMMAND_TIMEOUT_MS);
    timer.unref();
    subscribed.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
