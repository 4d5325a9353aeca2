// An ioredis client (`Redis` or `Cluster`, ioredis 5 or 6) as configure() recognises it, by shape
// (client-shape.ts: ioredis 6 beside the runtime's 5 is another class). The members checked are
// the ones the store uses (call, pipeline, duplicate, status) and `isCluster`, which only ioredis
// clients carry; a node-redis client (sendCommand, isOpen) and a plain options object lack them.
import type { Cluster, Redis } from 'ioredis';
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
