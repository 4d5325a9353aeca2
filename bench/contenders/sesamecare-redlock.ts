// @sesamecare-oss/redlock 1.4.0 (the maintained fork of redlock 5): `redlock.acquire([key], ttl)`
// then `lock.release()`. Not `using()`, which adds automatic extension: the plain API is the
// closest match to one lease per critical section. Retries as for redlock@4: every 10 ± 5 ms.
import { Redlock, type Lock } from '@sesamecare-oss/redlock';
import type { Redis } from 'ioredis';
import { LEASE_MS, lockingOn, type Contender } from './contender';
import { REDLOCK_PRIMARIES, SINGLE_AS_LIST, type LockServers } from './topology-servers';

const SETTINGS = { driftFactor: 0.01, retryCount: 2000, retryDelay: 10, retryJitter: 5 };

function sesamecareRedlockOn(servers: LockServers<Redis[]>): () => Contender {
  return lockingOn(
    servers,
    '@sesamecare-oss/redlock',
    `new Redlock([${servers.where ? 'a client per primary' : 'client'}], ${JSON.stringify(SETTINGS)}); acquire([key], ${LEASE_MS}) … release()`,
    (clients) => {
      const redlock = new Redlock(clients, SETTINGS);
      redlock.on('error', () => undefined);
      return async (key) => {
        const held: Lock = await redlock.acquire([key], LEASE_MS);
        return () => held.release();
      };
    },
  );
}

export const createSesamecareRedlock = sesamecareRedlockOn(SINGLE_AS_LIST);
export const createSesamecareRedlockPrimaries = sesamecareRedlockOn(REDLOCK_PRIMARIES);
