// The Lua scripts of the Redis store, and one typed way to run them.
//
// Both compare the stored token before they touch the key: Redis runs a script atomically,
// so no other client can take the key between the check and the delete (or the expire).
// That is what guarantees a caller never releases or extends a lock it does not hold.
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

function script(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * KEYS[1] key, ARGV[1] token, ARGV[2] channel prefix. Returns 1 when deleted, 0 when not ours.
 * The notice goes to the key's own channel (prefix + key), heard only by processes waiting for it.
 */
export const RELEASE_SCRIPT = script(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  redis.call('publish', ARGV[2] .. KEYS[1], '')
  return 1
end
return 0
`);

/**
 * KEYS[1] key, ARGV[1] token, ARGV[2] next holder's token, ARGV[3] its lease in ms.
 * Hands a held key straight to a waiter in the same process: 1 when handed over, 0 when not ours.
 */
export const HANDOVER_SCRIPT = script(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`);

/** KEYS[1] key, ARGV[1] token, ARGV[2] lease in ms. Returns 1 when extended, 0 when not ours. */
export const RENEW_SCRIPT = script(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`);

/**
 * EVALSHA, falling back to EVAL when the server has not seen the script (first use, a
 * restart, a failover, SCRIPT FLUSH). EVAL also loads it, so the next call hits the cache.
 * Not async: it runs on every release, and each async frame is another promise for Node's
 * async hooks to visit.
 */
export function runScript(
  client: Redis | Cluster,
  { source, sha1 }: RedisScript,
  key: string,
  args: (string | number)[],
): Promise<unknown> {
  return client.evalsha(sha1, 1, key, ...args).catch((error: unknown) => {
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return client.eval(source, 1, key, ...args);
    throw error;
  });
}
