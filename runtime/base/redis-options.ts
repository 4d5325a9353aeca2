// ioredis options as configure() takes them, checked before anything connects.
//
// ioredis reads any object as options and fills what it lacks with its defaults: `{}`,
// `{ url }`, `{ hots: 'redis.internal' }` or `{ host: process.env.REDIS_HOST }` with the
// variable unset all connect to localhost:6379 — locks on a Redis nobody named. So the keys are
// those ioredis 5 and 6 declare (a typo is refused, with the spelling it meant), and the options
// must name their server themselves: `host`, `path` or `sentinels` with `name`. `{ port: 6380 }`
// alone names no host and is refused too (write `host: '127.0.0.1'` to mean this machine).
import { checkHost, checkPort, describeValue, parseRedisUrl, type RedisUrl } from './redis-address';
import { printable } from './printable';
import { closest } from './suggest';

/**
 * ioredis's RedisOptions: CommonRedisOptions, StandaloneConnectionOptions, SentinelConnectionOptions
 * and CommanderOptions, as declared by ioredis 5.8 and 6.0 (built/redis/RedisOptions.d.ts and the
 * connectors' types); the 6.0-only ones are marked.
 */
export const REDIS_OPTION_KEYS: readonly string[] = [
  // where, and as whom
  'host',
  'port',
  'path',
  'family',
  'tls',
  'username',
  'password',
  'db',
  // Sentinel
  'sentinels',
  'name',
  'role',
  'sentinelUsername',
  'sentinelPassword',
  'sentinelRetryStrategy',
  'sentinelReconnectStrategy',
  'preferredSlaves',
  'sentinelCommandTimeout',
  'enableTLSForSentinelMode',
  'sentinelTLS',
  'natMap',
  'updateSentinels',
  'sentinelMaxConnections',
  'failoverDetector',
  // the connection
  'Connector',
  'retryStrategy',
  'commandTimeout',
  'socketTimeout',
  'keepAlive',
  'noDelay',
  'connectionName',
  'disableClientInfo',
  'clientInfoTag',
  'autoResubscribe',
  'autoResendUnfulfilledCommands',
  'reconnectOnError',
  'readOnly',
  'stringNumbers',
  'connectTimeout',
  'disconnectTimeout',
  'monitor',
  'maxRetriesPerRequest',
  'maxLoadingRetryTime',
  'enableAutoPipelining',
  'autoPipeliningIgnoredCommands',
  'offlineQueue',
  'commandQueue',
  'enableOfflineQueue',
  'enableReadyCheck',
  'lazyConnect',
  'scripts',
  'keyPrefix',
  'showFriendlyErrorStack',
  // ioredis 6.0
  'blockingTimeout',
  'blockingTimeoutGrace',
  'protocol',
  'replyMapping',
  'himportFieldsets',
];

/** ioredis's ClusterOptions (5.8 and 6.0, built/cluster/ClusterOptions.d.ts, with CommanderOptions). */
export const CLUSTER_OPTION_KEYS: readonly string[] = [
  'clusterRetryStrategy',
  'enableOfflineQueue',
  'enableReadyCheck',
  'scaleReads',
  'maxRedirections',
  'retryDelayOnFailover',
  'retryDelayOnClusterDown',
  'retryDelayOnTryAgain',
  'retryDelayOnMoved',
  'slotsRefreshTimeout',
  'slotsRefreshInterval',
  'useSRVRecords',
  'resolveSrv',
  'dnsLookup',
  'natMap',
  'redisOptions',
  'enableAutoPipelining',
  'autoPipeliningIgnoredCommands',
  'scripts',
  'lazyConnect',
  'shardedSubscribers',
  'keyPrefix',
  'showFriendlyErrorStack',
  // ioredis 6.0
  'clusterNodeRetryStrategy',
  'himportFieldsets',
];

/** The keys that say which server (and database, and as whom): a URL says these itself, and a Cluster's nodes do. */
const SERVER_KEYS: readonly string[] = [
  'host',
  'port',
  'path',
  'sentinels',
  'name',
  'db',
  'username',
  'password',
  'tls',
];

/**
 * Options for one server (or Sentinel's primary): known keys, and a server they name. Throws a
 * TypeError that names the key and what is wrong, never a value that could be a credential.
 */
export function checkRedisOptions(options: object, where: string): void {
  checkKeys(options, REDIS_OPTION_KEYS, where, 'an ioredis option');
  const given = definedEntries(options);
  const has = (key: string) => given.has(key);
  if (has('sentinels')) {
    const clash = ['host', 'port', 'path'].filter(has);
    if (clash.length)
      throw new TypeError(
        `${where}: ${clash.join(', ')} beside sentinels is not read (the Sentinels name the primary); leave ${clash.length > 1 ? 'them' : 'it'} out`,
      );
    checkSentinels(given.get('sentinels'), given.get('name'), where);
  } else if (has('path')) {
    const clash = ['host', 'port'].filter(has);
    if (clash.length)
      throw new TypeError(
        `${where}: ${clash.join(', ')} beside path is not read (a socket path names the server); leave ${clash.length > 1 ? 'them' : 'it'} out`,
      );
    if (typeof given.get('path') !== 'string' || given.get('path') === '')
      throw new TypeError(`${where}: path must be a Unix socket path; got ${describeValue(given.get('path'))}`);
  } else if (has('host')) {
    checkHost(given.get('host'), `${where}: host`);
    if (has('port')) checkPort(given.get('port'), `${where}: port`);
  } else if (!has('Connector')) {
    throw new TypeError(
      `${where} names no server: give host (and port), path, or sentinels and name, or pass a redis:// URL. ` +
        `(ioredis would connect to localhost:6379${has('port') ? "; to mean this machine, write host: '127.0.0.1'" : ''}; an unset variable as host does this too)`,
    );
  }
  checkCommonValues(given, where);
}

/** A Cluster's per-node options (clusterOptions.redisOptions): the nodes are named by `cluster`, not here. */
export function checkNodeOptions(options: unknown, where: string): void {
  if (options === undefined) return;
  if (!isPlainObject(options))
    throw new TypeError(`${where} must be ioredis options (a plain object); got ${describeValue(options)}`);
  checkKeys(options, REDIS_OPTION_KEYS, where, 'an ioredis option');
  const given = definedEntries(options);
  const named = ['host', 'port', 'path', 'sentinels', 'name'].filter((key) => given.has(key));
  if (named.length)
    throw new TypeError(
      `${where}: ${named.join(', ')} is not read for a Cluster's nodes; name the nodes in \`cluster\``,
    );
  if (given.has('db') && Number(given.get('db')) !== 0)
    throw new TypeError(`${where}: a Redis Cluster has only database 0`);
  checkCommonValues(given, where);
}

/** ioredis ClusterOptions. */
export function checkClusterOptions(options: unknown, where: string): void {
  if (options === undefined) return;
  if (!isPlainObject(options))
    throw new TypeError(`${where} must be ioredis ClusterOptions (a plain object); got ${describeValue(options)}`);
  checkKeys(options, CLUSTER_OPTION_KEYS, where, 'an ioredis Cluster option');
  checkNodeOptions((options as { redisOptions?: unknown }).redisOptions, `${where}.redisOptions`);
}

/**
 * The ioredis options a URL stands for, as ioredis itself would read them (query parameters are
 * options, `family` a number), checked like options given as an object; the server comes from
 * the URL alone.
 */
export function urlOptions(url: RedisUrl, where: string): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [key, value] of url.query) {
    if (SERVER_KEYS.includes(key))
      throw new TypeError(
        `${where}: the query parameter ${printable(key).slice(0, 40)} is not read (the URL names its server and credentials before the ?)`,
      );
    query[key] = key === 'family' ? Number.parseInt(value, 10) : value;
  }
  checkKeys(query, REDIS_OPTION_KEYS, `${where}: its query`, 'an ioredis option');
  return {
    ...query,
    host: url.host,
    port: url.port,
    db: url.db,
    ...(url.tls ? { tls: {} } : {}),
    ...(url.username !== undefined ? { username: url.username } : {}),
    ...(url.password !== undefined ? { password: url.password } : {}),
  };
}

/** A URL or options for one server, as the ioredis options the runtime opens a client with. */
export function serverOptions(redis: unknown, where: string): Record<string, unknown> {
  if (typeof redis === 'string') return urlOptions(parseRedisUrl(redis, where), where);
  checkRedisOptions(redis as object, where);
  return { ...(redis as object) };
}

/**
 * A copy of options given as plain data — objects and arrays, all the way down — taken when they
 * are checked: the caller's object changing later must not move locks to a server never checked.
 * Anything else (a client, a Buffer, a function) is kept as it is.
 */
export function plainCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(plainCopy) as T;
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, plainCopy(entry)])) as T;
}

export function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Unknown keys are refused, with the known key they most likely meant. */
export function checkKeys(options: object, known: readonly string[], where: string, what: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const meant = key === 'url' ? undefined : closest(key, known);
    const hint =
      key === 'url' ? '; pass the URL itself: configure({ redis: url })' : meant ? `; did you mean ${meant}?` : '';
    throw new TypeError(`${where}: ${printable(key).slice(0, 40)} is not ${what}${hint}`);
  }
}

/** The entries whose value is not undefined: `{ host: undefined }` names no host. */
function definedEntries(options: object): Map<string, unknown> {
  return new Map(Object.entries(options).filter(([, value]) => value !== undefined));
}

function checkSentinels(sentinels: unknown, name: unknown, where: string): void {
  if (!Array.isArray(sentinels) || sentinels.length === 0)
    throw new TypeError(
      `${where}: sentinels must be a non-empty list of { host, port }; got ${describeValue(sentinels)}`,
    );
  sentinels.forEach((sentinel: unknown, index) => {
    const at = `${where}: sentinels[${index}]`;
    if (!isPlainObject(sentinel)) throw new TypeError(`${at} must be { host, port }; got ${describeValue(sentinel)}`);
    checkKeys(sentinel, ['host', 'port', 'family'], at, 'a Sentinel address key');
    checkHost((sentinel as { host?: unknown }).host, `${at}.host`);
    const port = (sentinel as { port?: unknown }).port;
    if (port !== undefined) checkPort(port, `${at}.port`);
  });
  if (typeof name !== 'string' || name === '')
    throw new TypeError(
      `${where}: sentinels need name, the primary's name the Sentinels know (e.g. 'mymaster'); got ${describeValue(name)}`,
    );
}

/** The values that decide where and as whom the client connects, whatever named the server. */
function checkCommonValues(given: ReadonlyMap<string, unknown>, where: string): void {
  // A string of digits is read as its number, as ioredis does (a database number from an environment variable).
  const db =
    typeof given.get('db') === 'string' && /^\d{1,9}$/.test(given.get('db') as string)
      ? Number(given.get('db'))
      : given.get('db');
  if (db !== undefined && !(Number.isInteger(db) && (db as number) >= 0))
    throw new TypeError(`${where}: db must be a whole number >= 0; got ${describeValue(db)}`);
  const family = given.get('family');
  if (family !== undefined && family !== 0 && family !== 4 && family !== 6)
    throw new TypeError(`${where}: family must be 0, 4 or 6; got ${describeValue(family)}`);
  for (const key of ['username', 'password', 'sentinelUsername', 'sentinelPassword', 'name']) {
    const value = given.get(key);
    if (value !== null && value !== undefined && typeof value !== 'string')
      throw new TypeError(`${where}: ${key} must be a string; got ${describeValue(value)}`);
  }
  const tls = given.get('tls');
  if (
    tls !== undefined &&
    typeof tls !== 'boolean' &&
    typeof tls !== 'string' &&
    !(typeof tls === 'object' && tls !== null)
  ) {
    throw new TypeError(`${where}: tls must be TLS options (an object); got ${describeValue(tls)}`);
  }
}
