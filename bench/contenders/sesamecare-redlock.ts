// @sesamecare-oss/redlock 1.4.0 (the maintained fork of redlock 5): `redlock.acquire([key], ttl)`
// then `lock.release()`. Not `using()`, which adds automatic extension: the plain API is the
// closest match to one lease per critical section. Retries as for redlock@4: every 10 ± 5 ms.
import { Redlock, type Lock } from '@sesamecare-oss/redlock';
import { LEASE_MS, type Contender } from './contender';

const SETTINGS = { driftFactor: 0.01, retryCount: 2000, retryDelay: 10, retryJitter: 5 };

export function createSesamecareRedlock(): Contender {
  let redlock: Redlock;
  return {
    name: '@sesamecare-oss/redlock',
    settings: `new Redlock([client], ${JSON.stringify(SETTINGS)}); acquire([key], ${LEASE_MS}) … release()`,
    async setup(client) {
      redlock = new Redlock([client], SETTINGS);
      redlock.on('error', () => undefined);
    },
    async lock(key, body) {
      const held: Lock = await redlock.acquire([key], LEASE_MS);
      try {
        return await body();
      } finally {
        await held.release();
      }
    },
    async teardown() {},
  };
}
