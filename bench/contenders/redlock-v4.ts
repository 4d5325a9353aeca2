// redlock 4.2.0 (the `redlock` package's current release line): `redlock.lock(resource, ttl)`,
// then `lock.unlock()`, as its README shows, with one ioredis client (a single Redis node) or one
// per Redlock primary (bench/topologies.ts).
// Its default retryDelay (200 ± 100 ms) would make the hot key a test of sleeping, so the
// retries are set to poll every 10 ± 5 ms — redis-semaphore's default interval — long enough to
// outlast any wait here.
import type { Redis } from 'ioredis';
import { LEASE_MS, lockingOn, type Contender } from './contender';
import { REDLOCK_PRIMARIES, SINGLE_AS_LIST, type LockServers } from './topology-servers';

// redlock 4 ships no type declarations; this is the part of its API the bench calls.
interface RedlockV4 {
  lock(resource: string, ttl: number): Promise<{ unlock(): Promise<unknown> }>;
  on(event: 'clientError', listener: (error: Error) => void): void;
}
type RedlockV4Class = new (clients: Redis[], options: Record<string, number>) => RedlockV4;

const OPTIONS = { driftFactor: 0.01, retryCount: 2000, retryDelay: 10, retryJitter: 5 };

function redlockV4On(servers: LockServers<Redis[]>): () => Contender {
  return lockingOn(
    servers,
    'redlock@4',
    `new Redlock([${servers.where ? 'a client per primary' : 'client'}], ${JSON.stringify(OPTIONS)}); lock(key, ${LEASE_MS}) … unlock()`,
    (clients) => {
      const Redlock = require('redlock') as RedlockV4Class;
      const redlock = new Redlock(clients, OPTIONS);
      redlock.on('clientError', () => undefined);
      return async (key) => {
        const held = await redlock.lock(key, LEASE_MS);
        return () => held.unlock();
      };
    },
  );
}

export const createRedlockV4 = redlockV4On(SINGLE_AS_LIST);
export const createRedlockV4Primaries = redlockV4On(REDLOCK_PRIMARIES);
