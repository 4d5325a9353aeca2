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
