// What every contender offers the scenarios: one critical section under one key.
import type { Redis } from 'ioredis';
import { nameOn, type LockServers } from './topology-servers';

export interface Contender {
  /** Short name used in tables, keys and the chart. */
  readonly name: string;
  /** The settings it runs with, stated in results.md: the numbers depend on them. */
  readonly settings: string;
  /** Gets the ioredis client that its locks (and the scenario's body) use. */
  setup(client: Redis): Promise<void>;
  /** Runs `body` while holding the lock on `key`; rejects if the lock cannot be had. */
  lock<T>(key: string, body: () => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

/** Lease used by every contender: far longer than any critical section here, so none expires mid-run. */
export const LEASE_MS = 30_000;

/** Every contender gives up after this long, so a broken lock ends a run instead of hanging it. */
export const GIVE_UP_MS = 20_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Takes the lock on `key` and gives back its release. */
export type TakeLock = (key: string) => Promise<() => Promise<unknown>>;

/**
 * A contender that locks through what `start` makes of its servers' clients (the single Redis's, a
 * Cluster's, the Redlock primaries'): the lock taken, the body run, the lock released, and the
 * clients the servers opened closed at teardown.
 */
export function lockingOn<Clients>(
  servers: LockServers<Clients>,
  name: string,
  settings: string,
  start: (clients: Clients) => TakeLock | Promise<TakeLock>,
): () => Contender {
  return () => {
    let clients: Clients;
    let take: TakeLock;
    return {
      name: nameOn(name, servers),
      settings,
      async setup(single) {
        clients = await servers.open(single);
        take = await start(clients);
      },
      async lock(key, body) {
        const release = await take(key);
        try {
          return await body();
        } finally {
          await release();
        }
      },
      async teardown() {
        await servers.close(clients);
      },
    };
  };
}
