// The floor: the least a correct Redis lock can do, on the same ioredis client.
// Uncontended, exactly one `SET key token NX PX` and one `EVALSHA` compare-and-delete per
// critical section, nothing else. Contended, it polls: SET NX again 1 ms after a refusal —
// as eager as a poller gets without spinning the event loop, so the floor is a hard baseline.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { GIVE_UP_MS, LEASE_MS, sleep, type Contender } from './contender';

export const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
export const RETRY_MS = 1;

export function createFloor(): Contender {
  let client: Redis;
  let sha = '';
  return {
    name: 'floor',
    settings: `SET NX PX ${LEASE_MS}; refused → SET NX again after ${RETRY_MS} ms (give up after ${GIVE_UP_MS} ms); release EVALSHA compare-and-DEL (script loaded once at setup)`,
    async setup(redis) {
      client = redis;
      sha = (await client.script('LOAD', RELEASE_SCRIPT)) as string;
    },
    async lock(key, body) {
      const token = randomUUID();
      const deadline = Date.now() + GIVE_UP_MS;
      while ((await client.set(key, token, 'PX', LEASE_MS, 'NX')) !== 'OK') {
        if (Date.now() > deadline) throw new Error(`floor: gave up on ${key}`);
        await sleep(RETRY_MS);
      }
      try {
        return await body();
      } finally {
        await client.evalsha(sha, 1, key, token);
      }
    },
    async teardown() {},
  };
}
