// redlock-universal 0.8.5 on the bench's ioredis client through its own IoredisAdapter:
// `createLock({ adapter, key, ttl, retryAttempts, retryDelay })`, then `acquire()` … `release(handle)`.
// For one Redis node its README points to createLock (SimpleLock: SET NX PX, compare-and-DEL by
// EVALSHA) rather than createRedlock; its RedLock over one adapter would only add quorum and
// drift bookkeeping that the redlock peers here pay because they have no single-node mode.
// Not `using()`, which adds automatic extension: the plain API is one lease per critical section,
// as for the other peers.
//
// Why one lock object per key, shared by concurrent callers: a SimpleLock is the library's handle on
// a resource (its README creates one per resource and reuses it); every acquire() draws a fresh
// random value and release() takes the handle, so sharing is safe. A new object per call would
// PING Redis on every acquire, since each object runs its own circuit-breaker health check at most
// every 30 s — once per key here. The defaults (performance 'standard', circuit breaker on, 5 s
// command timeout) are kept.
// On a Cluster it is the same createLock with an IoredisAdapter of an ioredis Cluster client (its
// README's Cluster use); on Redlock's 3 primaries, createRedlock({ adapters }) with one adapter each.
// Its default retries (3 × 100 ms) would fail most hot-key callers, so they are set as for the
// redlock peers: every 10 ms, 2000 times (≈ GIVE_UP_MS). It has no jitter option.
import type { Cluster, Redis } from 'ioredis';
import type * as RedlockUniversal from 'redlock-universal' with { 'resolution-mode': 'import' };
import { GIVE_UP_MS, LEASE_MS, lockingOn, type Contender } from './contender';
import { CLUSTER, REDLOCK_PRIMARIES, SINGLE, type LockServers } from './topology-servers';

const RETRY_DELAY_MS = 10;
const OPTIONS = { ttl: LEASE_MS, retryAttempts: GIVE_UP_MS / RETRY_DELAY_MS, retryDelay: RETRY_DELAY_MS };

type Library = typeof RedlockUniversal;

function redlockUniversalOn<Clients extends Redis | Cluster | Redis[]>(
  servers: LockServers<Clients>,
  settings: string,
  lockFor: (library: Library, clients: Clients, key: string) => RedlockUniversal.Lock,
): () => Contender {
  return lockingOn(servers, 'redlock-universal', `${settings} once per key; acquire() … release(handle)`, (clients) => {
    // The package is ESM-first with a CommonJS build; the bench is CommonJS, so it loads that build.
    const library = require('redlock-universal') as Library;
    const locks = new Map<string, RedlockUniversal.Lock>();
    return async (key) => {
      let lock = locks.get(key);
      if (!lock) locks.set(key, (lock = lockFor(library, clients, key)));
      const handle = await lock.acquire();
      return () => lock.release(handle);
    };
  });
}

const ONE_NODE = `createLock({ adapter: new IoredisAdapter(client), key, ...${JSON.stringify(OPTIONS)} })`;
export const createRedlockUniversal = redlockUniversalOn(SINGLE, ONE_NODE, (library, client, key) =>
  library.createLock({ adapter: new library.IoredisAdapter(client), key, ...OPTIONS }),
);
export const createRedlockUniversalCluster = redlockUniversalOn(
  CLUSTER,
  ONE_NODE.replace('(client)', '(cluster)'),
  (library, cluster, key) => library.createLock({ adapter: new library.IoredisAdapter(cluster), key, ...OPTIONS }),
);
export const createRedlockUniversalPrimaries = redlockUniversalOn(
  REDLOCK_PRIMARIES,
  `createRedlock({ adapters: [an IoredisAdapter per primary], key, ...${JSON.stringify(OPTIONS)} })`,
  (library, clients, key) =>
    library.createRedlock({ adapters: clients.map((client) => new library.IoredisAdapter(client)), key, ...OPTIONS }),
);
