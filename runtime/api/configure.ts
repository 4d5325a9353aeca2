// Process-wide settings: which store, which defaults, which logger.
//
// Without a configure() call the runtime connects lazily, on the first lock, to REDIS_URL or
// redis://127.0.0.1:6379. Settings are versioned so that each woven method resolves its
// options once and again only after a later configure().
import type * as IORedis from 'ioredis';
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { DEFAULT_LOCK_OPTIONS, mergeOptions, type LockOptions } from '../base/options';
import type { LockLogger } from '../lock/events';
import { COMMAND_TIMEOUT_MS } from '../store/command-batch';
import { LockError } from '../base/errors';
import type { LockStore } from '../store/lock-store';
import { isIORedisClient } from '../store/ioredis-client';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisSentinel, type NodeRedisClient, type NodeRedisClientLike } from '../store/node-redis-client';
import type { NodeRedisCluster, NodeRedisClusterLike } from '../store/node-redis-cluster';
import { assertOpenNodeRedisClient, NodeRedisLockStore } from '../store/node-redis-store';
import { RedisLockStore } from '../store/redis-store';
import { RedlockStore } from '../store/redlock-store';
import { clusterSetup, isClusterConfig, type ClusterConfig } from './cluster-config';

/** One of Redlock's servers: a URL (the runtime opens the client), an ioredis `Redis`, or a connected node-redis client. */
export type RedlockServer = string | Redis | NodeRedisClientLike;

export interface ConfigureOptions {
  /**
   * An ioredis `Redis` or `Cluster` (ioredis 5 or 6), or a connected node-redis client or cluster
   * (`createClient()` or `createCluster()` of `redis` v5 or v6) — a client passed in is left open by
   * close() — or a URL or ioredis options, for which the runtime opens an ioredis client (Sentinel
   * options `{ sentinels, name }` too: it follows failovers); or, for a Redis Cluster it opens, a
   * list of node URLs or `{ cluster: [URL or { host, port }, …], clusterOptions? }` (see cluster-config.ts).
   */
  redis?: Redis | Cluster | NodeRedisClientLike | NodeRedisClusterLike | string | RedisOptions | readonly string[] | ClusterConfig;
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
  /** Receives lock events; see `consoleLogger()` for the seed's log lines. Silent when unset. */
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

interface Settings {
  version: number;
  options: ConfigureOptions;
  defaults: LockOptions;
  /** The store locks go to now; made on first use. */
  slot: StoreSlot | undefined;
  /** The Redlock store (over `options.redlock`) locks with `redlock: true` go to now; made on first use. */
  redlockSlot: StoreSlot | undefined;
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';

/**
 * ioredis, loaded when the first store is made (or a client is passed in): importing a module with
 * a tagged method then costs no ~50 ms of ioredis loading, which matters to a command-line tool or
 * a test file that never takes a lock, and to every start under lockweave/register.
 */
let ioredisModule: typeof IORedis | undefined;
const ioredis = () => (ioredisModule ??= require('ioredis') as typeof IORedis);

/**
 * For connections the runtime opens. Fail rather than hang: a command Redis does not answer in
 * time rejects, and the lock attempt counts as failed. Never re-send a command after a
 * reconnect: a re-sent SET NX that had already been applied would find the key "taken" (by
 * ourselves) and strand it until its lease ends, and a re-sent release would find the key gone
 * and report a lost lock that was not lost. A command that errors instead is handled: an attempt
 * whose answer was lost is found ours by the caller's next attempt (one token per caller), a failed
 * release is sent again when the connection is back.
 */
/** The longest pause between reconnects of a connection the runtime opened. */
const RECONNECT_MAX_MS = 250;

const OWNED_CLIENT_OPTIONS: RedisOptions = {
  commandTimeout: COMMAND_TIMEOUT_MS,
  // A server that accepts the connection but never answers (a rediss:// URL for a plain server)
  // is reported in 3 s, not ioredis's 10, and later attempts fail at once (store/redis-health.ts).
  connectTimeout: 3_000,
  maxRetriesPerRequest: 1,
  autoResendUnfulfilledCommands: false,
  // The store writes its commands a few at a time itself (store/command-batch.ts); ioredis's own
  // pipelining would hold each of them to the end of the tick.
  enableAutoPipelining: false,
  // ioredis waits min(50 ms × attempt, 2 s) between reconnects: after an outage of a few seconds it
  // comes back a second or more after Redis does, and keys whose release failed wait for it.
  retryStrategy: (attempt: number) => Math.min(attempt * 50, RECONNECT_MAX_MS),
  // A restarted Redis loading its data answers ioredis's ready check with `loading:1`, and ioredis
  // then waits (ETA || 1 s) before looking again: a second after a small data set loaded in
  // milliseconds. Look again sooner.
  maxLoadingRetryTime: RECONNECT_MAX_MS,
};

/**
 * For a Sentinel client the runtime opens. When no Sentinel answers, ioredis tries them all again
 * after a timer of its own that is ref'd and that nothing can reach: a process whose work is done
 * would stay alive for as long as the Sentinels are gone. So it tries a few rounds at the reconnect
 * pace, then gives up, and the store connects the client again later on an unref'd timer
 * (store/connection-ref.ts). (In a failover the Sentinels answer — with the dead primary until the
 * promotion — and the ordinary reconnects, retryStrategy's, carry the client to the new primary.)
 */
const SENTINEL_ROUNDS = 3;
const OWNED_SENTINEL_OPTIONS: RedisOptions = {
  sentinelRetryStrategy: (round: number) => (round <= SENTINEL_ROUNDS ? Math.min(round * 50, RECONNECT_MAX_MS) : null),
  // ioredis waits for a Sentinel's answer without a timeout: one that takes the connection but never
  // answers (a paused or overloaded host) would stall the client for good, the other Sentinels unasked.
  sentinelCommandTimeout: 1_000,
};

/**
 * For a Cluster the runtime opens: the same promises on each node connection, and on the cluster
 * itself no re-send either — ioredis sends a command whose node connection closed again to the
 * slot's next primary (`retryDelayOnFailover`), though the lost primary may have applied it. A
 * command refused with CLUSTERDOWN or TRYAGAIN was not applied, and is retried as ioredis does.
 * No autopipelining: ioredis 5.8's Cluster pipelines fail whole when their keys' slots span nodes
 * ("All keys in the pipeline should belong to the same slots allocation group").
 */
function ownedClusterOptions(user: ClusterOptions, fromUrls: RedisOptions, inUse: () => boolean): ClusterOptions {
  const { retryStrategy: _perNode, ...perNode } = OWNED_CLIENT_OPTIONS;
  return {
    retryDelayOnFailover: 0,
    // Reconnects while the store is in use; an unused one ends, and its next command reconnects it.
    clusterRetryStrategy: (attempt: number) => (inUse() ? Math.min(attempt * 50, RECONNECT_MAX_MS) : null),
    ...user,
    redisOptions: { ...perNode, ...fromUrls, ...user.redisOptions },
  };
}

const settings: Settings = { version: 0, options: {}, defaults: { ...DEFAULT_LOCK_OPTIONS }, slot: undefined, redlockSlot: undefined };

/**
 * Changes the settings this call names and keeps the others: a second module that sets only a
 * logger changes only the logger, never the Redis the locks go to. Naming `redis` or `store`
 * replaces the connection (both are taken from this call); the store it replaces serves the
 * acquisitions and leases already under way and closes when the last of them ends.
 */
export function configure(options: ConfigureOptions): void {
  assertRedisOption(options.redis);
  if ('redlock' in options) assertRedlockOption(options.redlock);
  const merged = { ...settings.options, ...options };
  const { onFail: _ignored, ...defaults } = (merged.defaults ?? {}) as Partial<LockOptions>;
  // Validated before anything changes: a refused call leaves the settings as they were.
  const mergedDefaults = mergeOptions(DEFAULT_LOCK_OPTIONS, defaults, { prefix: merged.prefix });
  const reconnect = 'redis' in options || 'store' in options || 'releaseChannel' in options;
  if (reconnect) {
    merged.redis = options.redis;
    merged.store = options.store;
    if (settings.slot && settings.slot.store !== options.store) {
      settings.slot.retire();
      settings.slot = undefined;
    }
  }
  if ('redlock' in options || 'releaseChannel' in options) {
    // A copy: the caller's array changing later must not change the servers locks go to.
    if (options.redlock) merged.redlock = Object.freeze([...options.redlock]);
    settings.redlockSlot?.retire();
    settings.redlockSlot = undefined;
  }
  settings.options = merged;
  settings.defaults = mergedDefaults;
  settings.version++;
}

/** Closes the connections the runtime opened. The next lock reconnects lazily. */
export async function close(): Promise<void> {
  const stores = [settings.slot?.store, settings.redlockSlot?.store];
  settings.slot = undefined;
  settings.redlockSlot = undefined;
  settings.version++;
  await Promise.all(stores.map((store) => store?.close()));
}

export function currentStore(): LockStore {
  return currentSlot().store;
}

function currentSlot(): StoreSlot {
  return (settings.slot ??= new StoreSlot(createStore(settings.options)));
}

/**
 * A store and how many acquisitions and leases use it. One that configure() replaces keeps
 * serving those already under way and closes when the last of them ends.
 */
class StoreSlot {
  private uses = 0;
  private retired = false;

  constructor(readonly store: LockStore) {}

  use(): StoreUse {
    this.uses++;
    return new StoreUse(this);
  }

  ended(): void {
    if (--this.uses === 0 && this.retired) this.closeInBackground();
  }

  retire(): void {
    this.retired = true;
    if (this.uses === 0) this.closeInBackground();
  }

  /**
   * Nobody awaits this close: a connection that fails to close cleanly (already gone, or closed
   * by its client meanwhile) must not become an unhandled rejection, which ends a Node process.
   */
  private closeInBackground(): void {
    this.store.close().catch(() => undefined);
  }
}

/** One acquisition's claim on its store, from its first attempt to the end of its lease's release. */
export class StoreUse {
  private done = false;

  constructor(private readonly slot: StoreSlot) {}

  get store(): LockStore {
    return this.slot.store;
  }

  /** Idempotent: a failed acquisition may end it on two paths. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.slot.ended();
  }
}

export function useCurrentStore(): StoreUse {
  return currentSlot().use();
}

/**
 * The Redlock store, for a lock with `redlock: true`. Without Redlock servers the call fails, loudly:
 * never the single Redis instead, which would not be the lock the method asked for.
 */
export function useRedlockStore(key: string, site: string | undefined): StoreUse {
  const servers = settings.options.redlock;
  if (!servers) {
    throw new LockError(`lockweave: ${site ?? 'a lock'} asks for Redlock (redlock: true) on ${key}, but no Redlock servers are configured; `
      + 'call configure({ redlock: [url1, url2, url3] }) first', key);
  }
  return (settings.redlockSlot ??= new StoreSlot(createRedlockStore(servers, settings.options.releaseChannel))).use();
}

export function currentLogger(): LockLogger | undefined {
  return settings.options.logger;
}

export function currentDefaults(): Readonly<LockOptions> {
  return settings.defaults;
}

export function settingsVersion(): number {
  return settings.version;
}

/**
 * Anything but an ioredis client, a node-redis client, a URL or a plain options object is refused
 * here, at configure(). ioredis would read any other object as options and connect to its
 * default, 127.0.0.1:6379: locks on a different Redis than the one the caller meant.
 */
function assertRedisOption(redis: unknown): void {
  if (redis === undefined || typeof redis === 'string' || isClusterConfig(redis)) return;
  if (typeof redis === 'object' && redis !== null) {
    const proto = Object.getPrototypeOf(redis);
    if (proto === Object.prototype || proto === null) return;
    // node-redis first: a user with only node-redis need not load ioredis to be told yes or no.
    if (isNodeRedisSentinel(redis)) {
      throw new TypeError('lockweave: configure({ redis }) does not support a node-redis Sentinel client (createSentinel) yet; '
        + 'pass ioredis options `{ sentinels: [{ host, port }], name }` (the runtime opens a client that follows failovers), or an ioredis Redis made with them.');
    }
    if (isNodeRedisClient(redis) || isNodeRedisCluster(redis)) return assertOpenNodeRedisClient(redis);
    if (isIORedisClient(redis)) return;
  }
  const what = typeof redis === 'object' && redis !== null ? `an instance of ${redis.constructor?.name || 'an unknown class'}` : typeof redis;
  throw new TypeError(`lockweave: configure({ redis }) takes an ioredis Redis or Cluster, a node-redis client, a redis:// URL, or ioredis options; got ${what}. `
    + '(Any other object would be read as options and connect to 127.0.0.1:6379. For a Redis Cluster the runtime opens, pass its node URLs.)');
}

function createStore(options: ConfigureOptions): LockStore {
  if (options.store) return options.store;
  return singleStore(options.redis, options.releaseChannel);
}

function createRedlockStore(servers: readonly RedlockServer[], channel: string | undefined): LockStore {
  return new RedlockStore(servers.map((server) => ({ store: singleStore(server, channel), address: serverAddress(server) })));
}

/**
 * The store on one Redis (or Sentinel's primary, or one Cluster): the client passed in (left
 * open), or one the runtime opens (and closes).
 */
function singleStore(redis: ConfigureOptions['redis'], channel: string | undefined): LockStore {
  if (isNodeRedisClient(redis) || isNodeRedisCluster(redis)) return new NodeRedisLockStore(redis as NodeRedisClient | NodeRedisCluster, { channel });
  if (isIORedisClient(redis)) return new RedisLockStore(redis, { channel });
  const { Redis, Cluster } = ioredis();
  let client: Redis | Cluster;
  let store: RedisLockStore | undefined;
  if (isClusterConfig(redis)) {
    const { startupNodes, redisOptions, clusterOptions } = clusterSetup(redis);
    client = new Cluster(startupNodes, ownedClusterOptions(clusterOptions, redisOptions, () => store?.recentlyUsed() ?? true));
  } else {
    client =
      typeof redis === 'object'
        ? new Redis({ ...OWNED_CLIENT_OPTIONS, ...((redis as RedisOptions).sentinels ? OWNED_SENTINEL_OPTIONS : {}), ...(redis as RedisOptions) })
        : new Redis(redis ?? process.env.REDIS_URL ?? DEFAULT_URL, OWNED_CLIENT_OPTIONS);
  }
  // Connection errors reach callers through failed commands; an unhandled 'error' event would crash.
  client.on('error', () => undefined);
  return (store = new RedisLockStore(client, { channel, ownsClient: true }));
}

/**
 * Redlock's servers are refused at configure() unless there are at least 3, each a redis:// or
 * rediss:// URL, an ioredis `Redis` or a connected node-redis client, and no two the same server:
 * a server named twice would count twice towards the majority, and a lock held on it alone would
 * not be a lock.
 */
function assertRedlockOption(redlock: unknown): void {
  if (redlock === undefined) return;
  const usage = 'configure({ redlock }) takes an array of at least 3 independent Redis servers (redis:// URLs, ioredis clients or node-redis clients)';
  if (!Array.isArray(redlock)) throw new TypeError(`lockweave: ${usage}; got ${describe(redlock)}`);
  if (redlock.length < 3) {
    throw new TypeError(`lockweave: ${usage}; got ${redlock.length}: a majority of 3 or more servers is what lets a lock outlive one server's loss`);
  }
  const seen = new Map<unknown, number>();
  redlock.forEach((server: unknown, index) => {
    const where = `lockweave: configure({ redlock }): server ${index}`;
    if (typeof server === 'string') {
      let url: URL | undefined;
      try {
        url = new URL(server);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) throw new TypeError(`${where} is not a redis:// or rediss:// URL: ${JSON.stringify(server)}`);
    } else if (isNodeRedisCluster(server)) {
      throw new TypeError(`${where} is a node-redis cluster; Redlock takes independent single servers`);
    } else if (isNodeRedisClient(server)) {
      assertOpenNodeRedisClient(server);
    } else if (!isIORedisClient(server) || server.isCluster) {
      throw new TypeError(`${where} is not a redis:// URL, an ioredis Redis or a node-redis client (an ioredis Cluster is not one independent server); got ${describe(server)}`);
    }
    const address = serverAddress(server as RedlockServer);
    for (const id of [server, address]) {
      const earlier = seen.get(id);
      if (earlier !== undefined) throw new TypeError(`${where} is the same server as server ${earlier} (${address}); Redlock's servers must be independent`);
      seen.set(id, index);
    }
  });
}

function describe(value: unknown): string {
  return typeof value === 'object' && value !== null ? `an instance of ${value.constructor?.name || 'an unknown class'}` : typeof value;
}

/** host:port of a Redlock server, as far as its URL or client says (for duplicates and errors). */
function serverAddress(server: RedlockServer): string {
  if (typeof server === 'string') {
    const url = new URL(server);
    return `${url.hostname || 'localhost'}:${url.port || 6379}`;
  }
  const options = (server as { options?: { host?: string; port?: number; url?: string; socket?: { host?: string; port?: number; path?: string } } }).options;
  if (options?.socket?.path) return options.socket.path;
  if (options?.url) return serverAddress(options.url);
  const host = options?.host ?? options?.socket?.host ?? 'localhost';
  const port = options?.port ?? options?.socket?.port ?? 6379;
  return `${host}:${port}`;
}
