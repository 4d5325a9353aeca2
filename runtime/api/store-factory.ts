// From what configure() was given to a store: a client passed in is recognised and used as is
// (left open), a URL or options become a client the runtime opens (and closes).
import type * as IORedis from 'ioredis';
import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import type { LockOptions } from '../base/options';
import { printable } from '../base/printable';
import { DEFAULT_SENTINEL_PORT, printAddress, parseRedisUrl } from '../base/redis-address';
import { isPlainObject, serverOptions } from '../base/redis-options';
import type { LockStore } from '../store/lock-store';
import { isGlideClient } from '../store/glide-client';
import { GlideLockStore } from '../store/glide-store';
import { databaseOf, isCluster, isIORedisClient } from '../store/ioredis-client';
import { isNodeRedisClient, isNodeRedisCluster, type NodeRedisClient } from '../store/node-redis-client';
import type { NodeRedisCluster } from '../store/node-redis-cluster';
import { NodeRedisLockStore } from '../store/node-redis-store';
import { RedisLockStore } from '../store/redis-store';
import { RedlockStore } from '../store/redlock-store';
import { claimDefault, type Placement } from './runtime-copies';
import { clusterSetup, isClusterConfig } from './cluster-config';
import { assertOnPrimary, assertRepliesReadable, ownedClientOptions, ownedClusterOptions } from './owned-connection';
import type { ConfigureOptions, RedlockServer } from './settings';

/** The server of a process that names none (no configure({ redis }), no REDIS_URL); the command line's too. */
export const DEFAULT_URL = 'redis://127.0.0.1:6379';

/**
 * An environment variable that names a Redis-protocol server of any kind (`REDIS_HOST`, `REDISPORT`,
 * `REDIS_TLS_URL`, `redis_url`, `VALKEY_ENDPOINT`, `REDIS_HOSTS`, `KEYDB_URL`, `DRAGONFLY_HOST`;
 * the servers that speak the protocol under other names — Garnet, Kvrocks, Tair, Memurai; the
 * managed services' own names — ElastiCache, Memorystore, Upstash, Vercel's `KV_URL`; a
 * `SENTINEL_HOSTS`). A
 * deployment that names its Redis so and leaves REDIS_URL unset would otherwise have its locks taken
 * on 127.0.0.1:6379 — a Redis nobody named, or none, while the other instances lock elsewhere —
 * without a word. So the default is refused beside such a variable. Any name holding the server's
 * kind counts, not a list of address words (a list missed `REDIS_HOSTS`, `REDIS_PRIMARY`,
 * `REDIS_SECRET`): refusing a variable that named no server costs its user one REDIS_URL; taking the
 * default beside one that did costs their locks.
 */
const NAMES_A_SERVER =
  /redis|valkey|keydb|dragonfly|redict|garnet|kvrocks|memurai|elasticache|memorystore|upstash|sentinel|(?<![a-z])(?:tair|kv|pika)(?![a-z])/i;

/**
 * A value that names a Redis, whatever the variable's name (`CACHE_URL`, a platform's
 * `DATABASE_URL=rediss://…`): it names a server as surely as a name does. Read, never printed.
 * Searched anywhere in the value, not only at its start: a Redis is as often named inside a value as
 * by it — in JSON (`NODE_CONFIG={"redis":{"url":"redis://…"}}`, the `config` package's override), in
 * a list (kombu's `sentinel://a:26379;sentinel://b:26379`), in the quotes docker's `--env-file`,
 * systemd's `Environment=` and many `.env` loaders keep (`CACHE_URL="redis://…"`). Each form is
 * word-bounded, so it is not read out of a longer word (`myredis://`, `x:16379`). One of:
 * - a URL of a Redis scheme — `redis`, `rediss`, `valkey`, `valkeys`, `redict`, a variant of one
 *   (`redis+sentinel://`, kombu's `redis+socket://`), or kombu's and Celery's `sentinel://`;
 * - `host:6379`, `[::1]:26379`, with a database (`host:6379/0`), alone, in a list (a Cluster's
 *   nodes), after `tcp://` (docker's links) or `user:password@`: 6379 and 26379 are the ports
 *   registered to Redis and its Sentinel, and nothing else is reached there. Another port
 *   (`cache:6380`) says nothing of what listens, and is not read so. Left alone: a port mapping
 *   (`6379:6379`, `127.0.0.1:6379:6379`: a host of digits only, or a port followed by `:`), and a
 *   URL's path after the port (`http://docs.example:6379/guide`);
 * - a JSON (or YAML, or JS) key `port` of 6379 or 26379 (`{"host":"10.0.0.5","port":6379}`);
 * - a socket (REDIS_SOCKET): a URL `unix:/…` or `unix:///…` (node-redis and ioredis take it, redis-py
 *   and the Ruby client too), or a path ending in `.sock` or `.socket` (ioredis takes
 *   `/run/redis/redis.sock` as one), when the path names a Redis: `DOCKER_HOST=unix:///var/run/docker.sock`,
 *   D-Bus's `unix:path=…` and a `PATH` or `HOME` under a redis folder name none.
 * An address or URL inside another URL counts too (`https://docs.example/?connect=redis://…`): a value
 * that spells a Redis's address is refused even if it only mentions one, as refusing costs its user
 * one REDIS_URL, and taking the default beside a server that was meant costs their locks.
 * Only the value's first SCANNED characters are read: an environment value may be megabytes (a
 * certificate, a whole config), and the check runs at every process's first lock. A Redis named
 * only further in is not seen.
 */
const SCANNED = 4096;
const SOCKET_KINDS = /redis|valkey|keydb|dragonfly|redict|garnet|kvrocks/i;
const REDIS_VALUE = new RegExp(
  [
    // A scheme is letters, digits, `+`, `-`, `.`: one of them before means a longer scheme.
    String.raw`(?<![a-z\d+.-])(?:redis|rediss|valkey|valkeys|redict|sentinel)(?:[+-][a-z]+)?:\/\/`,
    // Not a digits-only host, not after a host's or port's character, not followed by more of one.
    String.raw`(?<![\w.:[\]-])(?:(?!\d+:)[\w-]+(?:\.[\w-]+)*|\[[\da-f:.]+(?:%[\w.-]+)?\]):(?:6379|26379)(?:\/\d*)?(?![\w.:@/-])`,
    String.raw`(?<![\w-])["']?port["']?\s*:\s*["']?(?:6379|26379)(?![\w.])`,
  ].join('|'),
  'i',
);

/**
 * A socket's URL (`unix:` and its path, the first group) or a socket's path standing alone (after a
 * start, a blank, a quote, `=`, `,`, `;`, a bracket: not a URL's path; the second group). Lengths are
 * bounded by a socket path's own limit (108 bytes on Linux; the URL's has room for a `:password@`), so
 * a long run of slashes costs no more than a few times its length.
 */
const REDIS_SOCKET =
  /(?<![a-z\d+.-])unix:(\/[^\s?#"',;]{0,300})|(?<![^\s"'`=,;([{])(\/[^\s:?#"'`,;]{0,120}\.sock(?:et)?)(?=$|[\s"'`,;)\]}])/gi;

/** True when `value` names a Redis (REDIS_VALUE, REDIS_SOCKET), judged on its first SCANNED characters. */
function namesRedis(value: string): boolean {
  const text = value.slice(0, SCANNED);
  if (REDIS_VALUE.test(text)) return true;
  for (const [, url, path] of text.matchAll(REDIS_SOCKET)) {
    if (SOCKET_KINDS.test(url ?? path)) return true;
  }
  return false;
}

/**
 * Names that mention a server's kind without naming a server, left alone: lockweave's own
 * (LOCKWEAVE_REDIS_SERVER names a server binary), the official images' build facts (REDIS_VERSION,
 * REDIS_DOWNLOAD_URL, REDIS_DOWNLOAD_SHA), and a package manager's copies of package.json text that
 * is no setting: a script's command line (`npm_package_scripts_redis_server`: yarn 1, pnpm, npm 6
 * and older) and the dependency lists (`npm_package_dependencies_ioredis`: pnpm and yarn 1 copy the
 * whole package.json, so every app of theirs that depends on ioredis has one), and the command line
 * of the script that runs, `npm_lifecycle_script` (`docker run -p 6379:6379 redis && ava`). The rest
 * of package.json's copy (`npm_package_description`, `npm_package_homepage`…) is judged by its name
 * only (PACKAGE_TEXT): a description that mentions `localhost:6379` names no server of this process.
 * Not left alone, though they start with npm_: `npm_package_config_*`, package.json's "config",
 * which npm and bun hand every script precisely as settings (`"config": { "redis_url": … }`), and
 * `npm_config_*`, any key of an .npmrc — a server named there is a server named.
 */
const NOT_A_SETTING = new RegExp(
  [
    '^lockweave_',
    '^(?:redis|valkey|keydb|dragonfly)_(?:version|download_url|download_sha)$',
    '^npm_package_(?:scripts|(?:dev|peer|optional)?dependencies(?:meta)?|overrides|resolutions|pnpm_overrides)_',
    '^npm_lifecycle_script$',
  ].join('|'),
  'i',
);

/** package.json's text as a package manager copies it, but for its "config" (settings): values not read. */
const PACKAGE_TEXT = /^npm_package_(?!config_)/i;

/** True when an environment variable, by its name or its value, may name a Redis server, other than REDIS_URL. */
function looksLikeRedisSetting(name: string): boolean {
  if (name === 'REDIS_URL' || NOT_A_SETTING.test(name)) return false;
  return NAMES_A_SERVER.test(name) || (!PACKAGE_TEXT.test(name) && namesRedis(process.env[name] ?? ''));
}

/**
 * The default server is used only when nothing in the environment names another: with REDIS_URL
 * unset and a variable such as REDIS_HOST set, the first lock is refused, naming the variables
 * (never their values, which may be passwords). The command line's `locks` and `unlock` read the
 * same default, so they ask the same, with `fix` saying how to name a server there.
 */
export function assertNoOtherRedisNamed(
  fix = 'set REDIS_URL (redis://[user:password@]host:port[/db]) or call configure({ redis }) before the first lock.',
): void {
  const named = Object.keys(process.env).filter(looksLikeRedisSetting).sort();
  if (named.length === 0) return;
  const shown = named.slice(0, 8).map((name) => printable(name).slice(0, 60));
  throw new TypeError(
    `lockweave: REDIS_URL is not set and configure({ redis }) was not called, so locks would go to the default ${DEFAULT_URL}, ` +
      `but the environment sets ${shown.join(', ')}${named.length > shown.length ? ` and ${named.length - shown.length} more` : ''}, ` +
      `which look like the address or credentials of another Redis. Refusing rather than lock on a server nobody named: ${fix}`,
  );
}

/**
 * ioredis, loaded when the first store is made (or a client is passed in): importing a module with
 * a tagged method then costs no ~50 ms of ioredis loading, which matters to a command-line tool or
 * a test file that never takes a lock, and to every start under lockweave/register.
 */
let ioredisModule: typeof IORedis | undefined;
const ioredis = () => (ioredisModule ??= require('ioredis') as typeof IORedis);

export function createStore(options: ConfigureOptions): LockStore {
  if (options.store) return options.store;
  // Without configure({ redis }): REDIS_URL, read (and checked like any URL) when the first lock needs it.
  if (options.redis === undefined) {
    const fromEnv = process.env.REDIS_URL;
    if (fromEnv === undefined) assertNoOtherRedisNamed();
    claimDefault();
    // Set but empty (a secret that did not render, `REDIS_URL=` in a file) names no server: the
    // default would be one nobody named. Only an unset variable means the default.
    return singleStore(
      fromEnv ?? DEFAULT_URL,
      options.releaseChannel,
      fromEnv !== undefined ? 'lockweave: REDIS_URL' : 'lockweave: the default URL',
    );
  }
  return singleStore(options.redis, options.releaseChannel, 'lockweave: configure({ redis })');
}

export function createRedlockStore(servers: readonly RedlockServer[], channel: string | undefined): LockStore {
  return new RedlockStore(
    servers.map((server, index) => ({
      store: singleStore(server, channel, `lockweave: configure({ redlock }): server ${index}`),
      address: serverAddress(server),
    })),
  );
}

/**
 * The store on one Redis (or Sentinel's primary, or one Cluster): the client passed in (left
 * open), or one the runtime opens (and closes) with what the checks read from the URL or options.
 */
function singleStore(
  redis: NonNullable<ConfigureOptions['redis']>,
  channel: string | undefined,
  where: string,
): LockStore {
  // A client passed in was checked by configure() (assertOwnedConnections): used as it is.
  if (isNodeRedisClient(redis) || isNodeRedisCluster(redis))
    return new NodeRedisLockStore(redis as NodeRedisClient | NodeRedisCluster, { channel });
  if (isGlideClient(redis)) return new GlideLockStore(redis, { channel });
  if (isIORedisClient(redis)) return new RedisLockStore(redis, { channel });
  const { Redis, Cluster } = ioredis();
  let store: RedisLockStore | undefined;
  const connection = ownedConnection(redis, where, () => store?.recentlyUsed() ?? true);
  const client: Redis | Cluster = connection.cluster
    ? new Cluster(connection.cluster, connection.options)
    : new Redis(connection.options);
  // Connection errors reach callers through failed commands; an unhandled 'error' event would crash.
  client.on('error', () => undefined);
  return (store = new RedisLockStore(client, { channel, ownsClient: true }));
}

/** What the runtime opens for a URL, options or a Cluster's nodes: one place, for the store and for configure()'s checks. */
function ownedConnection(
  redis: string | object,
  where: string,
  inUse: () => boolean,
): { cluster: ClusterNode[]; options: ClusterOptions } | { cluster?: undefined; options: RedisOptions } {
  if (isClusterConfig(redis)) {
    const { startupNodes, redisOptions, clusterOptions } = clusterSetup(redis);
    return { cluster: startupNodes, options: ownedClusterOptions(clusterOptions, redisOptions, inUse, where) };
  }
  return { options: ownedClientOptions(serverOptions(redis, where) as RedisOptions, where) };
}

/**
 * The connections configure() names that the runtime would open, made up as the store will make
 * them (nothing connects): a setting they may not have (owned-connection.ts) is refused at
 * configure(), not at the first lock — and a client passed in whose replies the lock cannot read.
 */
export function assertOwnedConnections({ redis, redlock }: ConfigureOptions): void {
  const opened = (server: unknown) => typeof server === 'string' || isPlainObject(server) || Array.isArray(server);
  const check = (server: unknown, where: string) => {
    if (opened(server)) ownedConnection(server as string | object, where, () => false);
    // A client passed in is its owner's, but one whose replies the lock cannot read is refused now too.
    else if (isIORedisClient(server) || isNodeRedisClient(server) || isNodeRedisCluster(server)) {
      assertRepliesReadable(server, where);
      assertOnPrimary(server, where);
    }
  };
  check(redis, 'lockweave: configure({ redis })');
  redlock?.forEach((server, index) => check(server, `lockweave: configure({ redlock }): server ${index}`));
}

/** host:port of a Redlock server, as far as its URL or client says (for duplicates and errors; never credentials). */
export function serverAddress(server: RedlockServer): string {
  if (typeof server === 'string') {
    const { host, port } = parseRedisUrl(server, 'a Redlock server');
    return printAddress({ host, port });
  }
  const options = (
    server as {
      options?: {
        host?: string;
        port?: number;
        path?: string;
        url?: string;
        socket?: { host?: string; port?: number; path?: string };
      };
    }
  ).options;
  if (options?.url) return serverAddress(options.url);
  return printAddress({
    path: options?.path ?? options?.socket?.path,
    host: options?.host ?? options?.socket?.host,
    port: options?.port ?? options?.socket?.port,
  });
}

/**
 * What decides where locks configured so go and under which keys, for comparing copies of the
 * runtime (runtime-copies.ts): the server as its address, database and key prefix (never its
 * credentials), or as the object itself where nothing else tells (a store, a Cluster or GLIDE
 * client); the prefix; the Redlock servers and the redlock default.
 */
export function copyPlacement(options: ConfigureOptions, defaults: LockOptions): Placement {
  return {
    server: serverPlace(options),
    prefix: defaults.prefix,
    redlockServers: options.redlock?.map(serverAddress).sort().join(', '),
    redlock: defaults.redlock,
  };
}

function serverPlace({ redis, store }: ConfigureOptions): Placement['server'] {
  if (store) return { text: `a ${store.constructor?.name || 'store'} passed in`, object: store };
  if (redis === undefined) return { text: 'the default Redis (REDIS_URL, else 127.0.0.1:6379)' };
  if (isClusterConfig(redis)) {
    const { startupNodes, clusterOptions } = clusterSetup(redis);
    const nodes = startupNodes.map((node) => printAddress(node as { host: string; port: number }));
    return { text: `the Redis Cluster of ${nodes.sort().join(', ')}${keyPrefixText(clusterOptions.keyPrefix)}` };
  }
  if (typeof redis === 'string' || isPlainObject(redis as unknown))
    return optionsPlace(serverOptions(redis, 'lockweave: configure({ redis })') as RedisOptions);
  if (isIORedisClient(redis) && !isCluster(redis)) {
    // Read each time copies are compared, not once: the user's select() moves the client at any
    // time, and ioredis tells the database it selects (databaseOf).
    const now = (client: Redis) => optionsPlace(client.options, databaseOf(client));
    return {
      get text() {
        return now(redis).text;
      },
      get object() {
        return now(redis).object;
      },
    };
  }
  if (isNodeRedisClient(redis)) {
    // node-redis keeps the database a select() moved its client to to itself: only the client
    // itself tells, so two copies agree only on the same client.
    let text = 'a node-redis client passed in';
    try {
      text = `${serverAddress(redis as RedlockServer)} through a node-redis client`;
    } catch {
      // A URL node-redis took and lockweave's stricter reading does not: the client itself tells.
    }
    return { text, object: redis as object };
  }
  return { text: `a ${(redis as object).constructor?.name || 'client'} passed in`, object: redis as object };
}

function optionsPlace(options: RedisOptions, db = options.db ?? 0): Placement['server'] {
  if (options.Connector) return { text: 'a custom Connector', object: options.Connector };
  const server = options.sentinels
    ? `the primary ${options.name} of the Sentinels ${options.sentinels
        .map((sentinel) => printAddress({ host: sentinel.host, port: sentinel.port ?? DEFAULT_SENTINEL_PORT }))
        .sort()
        .join(', ')}`
    : printAddress({ host: options.host, port: options.port, path: options.path });
  return { text: `${server}, database ${db}${keyPrefixText(options.keyPrefix)}` };
}

/** A client's keyPrefix puts every key under it: a part of the key, as the prefix is. */
function keyPrefixText(keyPrefix: string | undefined): string {
  return keyPrefix ? `, keyPrefix ${JSON.stringify(keyPrefix)}` : '';
}
