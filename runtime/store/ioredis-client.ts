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

/** What ioredis keeps of a connection's state: the database it SELECTs is `select` (see databaseOf). */
interface ConnectionCondition {
  select?: unknown;
}

/**
 * The database ioredis puts each connection of `client` in: the one it SELECTs once the connection
 * is ready. That is the client's last `select()` — ioredis keeps it as `condition.select`, set as
 * the SELECT is sent, and emits 'select' — not only its `db` option: each connection starts a
 * new condition from `db` (and SELECTs that during the handshake), and once ready SELECTs the
 * database of the connection that closed (`prevCondition`, kept until then) again. A client that
 * never connected has its `db`; a Cluster, database 0 only.
 */
export function databaseOf(client: Redis | Cluster): number {
  if (isCluster(client)) return 0;
  const state = client as unknown as { prevCondition?: ConnectionCondition | null; condition?: ConnectionCondition };
  return Number(state.prevCondition?.select ?? state.condition?.select ?? client.options.db ?? 0);
}

/** The database ioredis SELECTs first on each connection of `client`, in its handshake (its `db` option). */
export function handshakeDatabaseOf(client: Redis | Cluster): number {
  return isCluster(client) ? 0 : Number(client.options.db ?? 0);
}

/**
 * Whether ioredis SELECTs a database on the connections of `client` — then a command it holds for
 * its next connection may be written there before the SELECT of the client's database, or after a
 * refused one, in database 0. Both are read: a client with no `db` moved by select(5) is in database
 * 0 through each new connection's handshake, and SELECTs 5 only once ready, after writing what it
 * held (databaseOf); one with `db: 3` moved back by select(0) is in database 3 until then
 * (handshakeDatabaseOf). Read as the commands go, not once: a select() moves the client at any time;
 * a few property reads, no allocation. A Cluster has database 0 only.
 */
export function selectsDatabase(client: Redis | Cluster): boolean {
  return databaseOf(client) !== 0 || handshakeDatabaseOf(client) !== 0;
}

/** An entry of an ioredis queue of commands (a denque) as read here. */
interface QueuedCommand {
  command?: { name?: unknown; promise?: Promise<unknown> };
}

/**
 * The replies of the SELECT `client` has just sent, read on its 'select' event: ioredis emits it
 * as it writes a SELECT (commandQueue) or holds one for the next connection (offlineQueue), right
 * after adding it to the end of that queue. The newest entry of each queue that is a SELECT.
 */
export function sentSelects(client: Redis): Promise<unknown>[] {
  const queues = client as unknown as Record<string, { peekBack?(): QueuedCommand | undefined } | undefined>;
  const replies: Promise<unknown>[] = [];
  for (const queue of [queues.commandQueue, queues.offlineQueue]) {
    const command = queue?.peekBack?.()?.command;
    if (command?.name === 'select' && command.promise) replies.push(command.promise);
  }
  return replies;
}
