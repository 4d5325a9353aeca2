// redis-semaphore 5.8.0's `Mutex`: one Mutex per critical section (its identifier is the
// holder's token, so instances must not be shared between concurrent callers), `acquire()`
// then `release()`. Its default retryInterval (10 ms) is kept; acquireTimeout is raised so
// every hot-key caller succeeds; the refresh timer (0.8 × lockTimeout) never fires here.
import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import { GIVE_UP_MS, LEASE_MS, type Contender } from './contender';

const OPTIONS = { lockTimeout: LEASE_MS, acquireTimeout: GIVE_UP_MS, retryInterval: 10 };

export function createRedisSemaphoreMutex(): Contender {
  let client: Redis;
  return {
    name: 'redis-semaphore Mutex',
    settings: `new Mutex(client, key, ${JSON.stringify(OPTIONS)}) per call; acquire() … release()`,
    async setup(redis) {
      client = redis;
    },
    async lock(key, body) {
      const mutex = new Mutex(client, key, OPTIONS);
      await mutex.acquire();
      try {
        return await body();
      } finally {
        await mutex.release();
      }
    },
    async teardown() {},
  };
}
