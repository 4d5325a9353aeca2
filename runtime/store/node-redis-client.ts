// A node-redis client (npm `redis`, v5 and v6) as the store uses it: how it is recognised, how a
// command is sent, how the subscriber of release notices is opened.
//
// Described by shape, not imported: `redis` is an optional peer, and a user without it must
// be able to compile against lockweave's types and load it.
import { holdProcess } from '../base/process-hold';
import { ChannelAsks } from './channel-asks';
import { hasMethods, isTimeoutError } from './client-shape';
import { COMMAND_TIMEOUT_MS, commandTimedOut, type CommandSender } from './command-batch';
import { ReplyPairing } from './node-redis-pairing';
import type { OpenSubscriber } from './redis-notices';
import { setTimer } from '../base/timer-delay';

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

/**
 * Sends each command alone: node-redis writes the commands of one tick together by itself.
 * Its arguments are strings (it refuses numbers), and a timeout error of v5 has no message, so
 * it is given one the health check (redis-health.ts) reads as a lost connection.
 */
export function nodeRedisSender(client: NodeRedisClient, address: string): CommandSender {
  const pairing = new ReplyPairing(client, address);
  return {
    send: (name, args) => pairing.send([name, ...args.map(String)]).catch(explainTimeout),
    // Each command is failed at the bound of its tick, written or not (node-redis-pairing.ts).
    boundMs: COMMAND_TIMEOUT_MS,
    close: () => pairing.close(),
  };
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
    const channels = new ChannelAsks();
    const reconnectStrategy = (retries: number) =>
      everReady && listening() ? Math.min(50 * (retries + 1), SUBSCRIBER_RECONNECT_MAX_MS) : false;
    const subscriber = client.duplicate({ socket: { ...client.options?.socket, reconnectStrategy } });
    subscriber.unref();
    subscriber.on('ready', () => {
      if (everReady) onBack(channels.channels());
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
        const ask = channels.ask(channel, undefined);
        // Given up, it is taken back only if nobody asked for the channel since (channel-asks.ts).
        return bounded(
          connected.then(() => subscriber.subscribe(channel, onChannelMessage)),
          () => {
            if (channels.undo(ask)) void subscriber.unsubscribe(channel).catch(() => undefined);
          },
        );
      },
      unsubscribe: (channel) => {
        channels.drop(channel);
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
