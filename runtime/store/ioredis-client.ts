// An ioredis client (`Redis` or `Cluster`, ioredis 5 or 6) as configure() recognises it.
//
// By shape, not by `instanceof`: a client made by another copy of ioredis — ioredis 6 beside the
// runtime's 5, or a second install of the same version — is a different class, and refusing it
// would send users to a URL they may not have. The members checked are the ones the store uses
// (call, pipeline, duplicate, status) and `isCluster`, which only ioredis clients carry; a
// node-redis client (sendCommand, isOpen) and a plain options object lack them.
import type { Cluster, Redis } from 'ioredis';

export function isIORedisClient(value: unknown): value is Redis | Cluster {
  if (typeof value !== 'object' || value === null) return false;
  const client = value as Partial<Record<'call' | 'pipeline' | 'duplicate' | 'status' | 'isCluster', unknown>>;
  return (
    typeof client.isCluster === 'boolean' &&
    typeof client.status === 'string' &&
    typeof client.call === 'function' &&
    typeof client.pipeline === 'function' &&
    typeof client.duplicate === 'function'
  );
}

/** An ioredis `Cluster`, by the flag ioredis itself sets (false on a `Redis`, Sentinel's included). */
export function isCluster(client: Redis | Cluster): client is Cluster {
  return client.isCluster === true;
}
