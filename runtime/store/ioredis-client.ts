// An ioredis client (`Redis` or `Cluster`, ioredis 5 or 6) as configure() recognises it, by shape
// (client-shape.ts: ioredis 6 beside the runtime's 5 is another class). The members checked are
// the ones the store uses (call, pipeline, duplicate, status) and `isCluster`, which only ioredis
// clients carry; a node-redis client (sendCommand, isOpen) and a plain options object lack them.
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { hasMethods } from './client-shape';

export function isIORedisClient(value: unknown): value is Redis | Cluster {
  return (
    hasMethods(value, 'call', 'pipeline', 'duplicate') &&
    typeof value.isCluster === 'boolean' &&
    typeof value.status === 'string'
  );
}

/** An ioredis `Cluster`, by the flag ioredis itself sets (false on a `Redis`, Sentinel's included). */
export function isCluster(client: Redis | Cluster): client is Cluster {
  return client.isCluster === true;
}

/** The options each connection of the client was made with (a Cluster's, for its nodes). */
export function connectionOptions(client: Redis | Cluster): RedisOptions | undefined {
  return isCluster(client) ? client.options.redisOptions : client.options;
}

/** The client's own `commandTimeout` in ms; 0 when it has none (ioredis's default). */
export function commandTimeoutOf(client: Redis | Cluster): number {
  const timeout = connectionOptions(client)?.commandTimeout;
  return typeof timeout === 'number' && timeout > 0 ? timeout : 0;
}

/**
 * Whether a subscribe command timed out on a connection that is still up: its reply was lost, and
 * ioredis, which keeps a timed-out command in its queue, would pair every later subscribe reply on
 * that connection with the command before it — each later one would time out in turn. Such a
 * connection is made again (ioredis-subscriber.ts, cluster-subscriber.ts).
 */
export function lostSubscribeReply(connection: Redis, error: unknown): boolean {
  return connection.status === 'ready' && error instanceof Error && error.message === 'Command timed out';
}

/**
 * The options of a subscriber connection (ioredis-subscriber.ts, cluster-subscriber.ts), over the
 * client's own: it subscribes again itself after a reconnect (see there), not ioredis.
 */
export const SUBSCRIBER_OPTIONS: RedisOptions = { autoResubscribe: false };

/**
 * Resolves once a subscribe command may be written on `connection`. ioredis writes one at once while
 * the connection is still in its handshake (the command may run while Redis loads); its reply puts
 * the connection in subscriber mode, the ready check's INFO after it is refused, ioredis drops the
 * connection — and the subscription answered on it is gone without a word (found on a loaded
 * machine: a waiter that never heard its release). So such a command waits for the handshake's end
 * (or the connection's); before and after it, ioredis queues or writes it as it should.
 *
 * Every command asked during one handshake waits on the same promise, with one 'ready' and one
 * 'close' listener on the connection: a listener for each would pile up while a paused Redis holds
 * the handshake (one SUBSCRIBE per waiting key), and past ten Node warns with the connection itself
 * as the warning's `emitter` — its options, password included, in whatever logs the warning.
 */
export function pastHandshake(connection: Redis): Promise<void> {
  if (connection.status !== 'connect') return Promise.resolve();
  const waiting = handshakes.get(connection);
  if (waiting) return waiting;
  const done = new Promise<void>((resolve) => {
    const settle = () => {
      connection.off('ready', settle);
      connection.off('close', settle);
      handshakes.delete(connection);
      resolve();
    };
    connection.once('ready', settle);
    connection.once('close', settle);
  });
  handshakes.set(connection, done);
  return done;
}

/** The handshake each connection is in, while commands wait for its end (pastHandshake). */
const handshakes = new WeakMap<Redis, Promise<void>>();
