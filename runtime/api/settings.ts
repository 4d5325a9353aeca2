// Process-wide settings: which store, which defaults, which logger, and their version.
//
// Settings are versioned so that each woven method resolves its options once and again only
// after a later configure().
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { DEFAULT_LOCK_OPTIONS, type LockOptions } from '../base/options';
import type { LockLogger } from '../lock/events';
import type { LockStore } from '../store/lock-store';
import type { GlideClientLike } from '../store/glide-client';
import type { NodeRedisClientLike } from '../store/node-redis-client';
import type { NodeRedisClusterLike } from '../store/node-redis-cluster';
import type { ClusterConfig } from './cluster-config';
import type { StoreSlot } from './store-slot';

/** One of Redlock's servers: a URL (the runtime opens the client), an ioredis `Redis`, or a connected node-redis client. */
export type RedlockServer = string | Redis | NodeRedisClientLike;

export interface ConfigureOptions {
  /**
   * An ioredis `Redis` or `Cluster` (ioredis 5 or 6), or a connected node-redis client or cluster
   * (`createClient()` or `createCluster()` of `redis` v5 or v6) — a client passed in is left open by
   * close() — or a redis:// URL or ioredis options that name their server (`host`, `path`, or
   * `sentinels` with `name`), for which the runtime opens an ioredis client (a Sentinel one follows
   * failovers); or, for a Redis Cluster it opens, a list of node URLs or
   * `{ cluster: [URL or { host, port }, …], clusterOptions? }` (see cluster-config.ts); or a Valkey
   * GLIDE `GlideClient` or `GlideClusterClient` (@valkey/valkey-glide 2.x), left open too.
   */
  redis?:
    | Redis
    | Cluster
    | NodeRedisClientLike
    | NodeRedisClusterLike
    | GlideClientLike
    | string
    | RedisOptions
    | readonly string[]
    | ClusterConfig;
  /** Any other store, e.g. `new MemoryLockStore()` for unit tests. Takes precedence over `redis`. */
  store?: LockStore;
  /** The key prefix when neither the tag nor the plugin sets one. Default `LOCK_`. */
  prefix?: string;
  /**
   * Defaults for lock options (below tag and plugin settings). `onFail` is not among them: what a
   * woven method returns on failure is part of its compiled code, so only its tag or the plugin's
   * compile-time defaults can choose `skip`.
   */
  defaults?: Partial<Omit<LockOptions, 'prefix' | 'onFail'>>;
  /** Receives lock events; see `consoleLogger()` for lockweave's log lines. Silent when unset. Its failures never change a lock's outcome. */
  logger?: LockLogger;
  /** The prefix of release channels: a released key is announced on `<prefix><key>`. Default `lockweave:released:`. */
  releaseChannel?: string;
  /**
   * Redlock's independent Redis primaries, at least 3: URLs (the runtime opens a client for each,
   * and closes it), ioredis clients or connected node-redis clients (left open by close()). A method
   * whose `redlock` option is true locks on a majority of them; the others keep to `redis`.
   */
  redlock?: readonly RedlockServer[];
}

/** The keys of ConfigureOptions, for refusing the others (one table: configure-checks.ts reads it). */
export const CONFIGURE_KEYS: readonly (keyof ConfigureOptions)[] = [
  'redis',
  'store',
  'prefix',
  'defaults',
  'logger',
  'releaseChannel',
  'redlock',
];

export interface Settings {
  version: number;
  options: ConfigureOptions;
  defaults: LockOptions;
  /** The logger, wrapped so that its failures stay its own (lock/events.ts guardedLogger). */
  logger: LockLogger | undefined;
  /** The store locks go to now; made on first use. */
  slot: StoreSlot | undefined;
  /** The Redlock store (over `options.redlock`) locks with `redlock: true` go to now; made on first use. */
  redlockSlot: StoreSlot | undefined;
}

export const settings: Settings = {
  version: 0,
  options: {},
  defaults: { ...DEFAULT_LOCK_OPTIONS },
  logger: undefined,
  slot: undefined,
  redlockSlot: undefined,
};

export function currentLogger(): LockLogger | undefined {
  return settings.logger;
}

export function currentDefaults(): Readonly<LockOptions> {
  return settings.defaults;
}

export function settingsVersion(): number {
  return settings.version;
}
