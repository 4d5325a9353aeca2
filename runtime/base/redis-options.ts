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

/** What one option's value must be, as configure() checks it: ioredis checks none of them. */
export type OptionType = 'number' | 'boolean' | 'string' | 'function' | 'object' | 'array' | 'null';

/**
 * ioredis's RedisOptions and the type of each: CommonRedisOptions, StandaloneConnectionOptions,
 * SentinelConnectionOptions and CommanderOptions, as declared by ioredis 5.8 and 6.0
 * (built/redis/RedisOptions.d.ts and the connectors' types); the 6.0-only ones are marked. ioredis
 * takes what it is given: `connectTimeout: '3000'` reached Node's socket and threw at the first
 * lock, `reconnectOnError: true` was called on the first error reply — both outside any caller's
 * try, ending the process. So a value of another type is refused when it is configured. A value
 * may be `null` only where ioredis reads null as "none".
 */
export const REDIS_OPTION_TYPES: Readonly<Record<string, readonly OptionType[]>> = {
  // where, and as whom (checked again, closer, by checkRedisOptions)
  host: ['string'],
  port: ['number'],
  path: ['string'],
  family: ['number'],
  // a TLS profile's name, TLS options, or true for the defaults
  tls: ['object', 'boolean', 'string'],
  username: ['string', 'null'],
  password: ['string', 'null'],
  db: ['number'],
  // Sentinel
  sentinels: ['array'],
  name: ['string', 'null'],
  role: ['string'],
  sentinelUsername: ['string', 'null'],
  sentinelPassword: ['string', 'null'],
  sentinelRetryStrategy: ['function', 'null'],
  sentinelReconnectStrategy: ['function', 'null'],
  preferredSlaves: ['function', 'array', 'object'],
  sentinelCommandTimeout: ['number'],
  enableTLSForSentinelMode: ['boolean'],
  sentinelTLS: ['object'],
  natMap: ['object', 'function'],
  updateSentinels: ['boolean'],
  sentinelMaxConnections: ['number'],
  failoverDetector: ['boolean'],
  // the connection
  Connector: ['function'],
  retryStrategy: ['function', 'null'],
  commandTimeout: ['number'],
  socketTimeout: ['number'],
  keepAlive: ['number'],
  noDelay: ['boolean'],
  connectionName: ['string'],
  disableClientInfo: ['boolean'],
  clientInfoTag: ['string'],
  autoResubscribe: ['boolean'],
  autoResendUnfulfilledCommands: ['boolean'],
  reconnectOnError: ['function', 'null'],
  readOnly: ['boolean'],
  stringNumbers: ['boolean'],
  connectTimeout: ['number'],
  disconnectTimeout: ['number'],
  monitor: ['boolean'],
  maxRetriesPerRequest: ['number', 'null'],
  maxLoadingRetryTime: ['number'],
  enableAutoPipelining: ['boolean'],
  autoPipeliningIgnoredCommands: ['array'],
  offlineQueue: ['boolean'],
  commandQueue: ['boolean'],
  enableOfflineQueue: ['boolean'],
  enableReadyCheck: ['boolean'],
  lazyConnect: ['boolean'],
  scripts: ['object'],
  keyPrefix: ['string'],
  showFriendlyErrorStack: ['boolean'],
  // ioredis 6.0
  blockingTimeout: ['number'],
  blockingTimeoutGrace: ['number'],
  protocol: ['number'],
  replyMapping: ['string'],
  himportFieldsets: ['array'],
};

/** ioredis's ClusterOptions (5.8 and 6.0, built/cluster/ClusterOptions.d.ts, with CommanderOptions) and their types. */
export const CLUSTER_OPTION_TYPES: Readonly<Record<string, readonly OptionType[]>> = {
  clusterRetryStrategy: ['function', 'null'],
  enableOfflineQueue: ['boolean'],
  enableReadyCheck: ['boolean'],
  scaleReads: ['string', 'function'],
  maxRedirections: ['number'],
  retryDelayOnFailover: ['number'],
  retryDelayOnClusterDown: ['number'],
  retryDelayOnTryAgain: ['number'],
  retryDelayOnMoved: ['number'],
  slotsRefreshTimeout: ['number'],
  slotsRefreshInterval: ['number'],
  useSRVRecords: ['boolean'],
  resolveSrv: ['function'],
  dnsLookup: ['function'],
  natMap: ['object', 'function'],
  // checked as options of their own (checkNodeOptions)
  redisOptions: ['object'],
  enableAutoPipelining: ['boolean'],
  autoPipeliningIgnoredCommands: ['array'],
  scripts: ['object'],
  lazyConnect: ['boolean'],
  shardedSubscribers: ['boolean'],
  keyPrefix: ['string'],
  showFriendlyErrorStack: ['boolean'],
  // ioredis 6.0
  clusterNodeRetryStrategy: ['function', 'null'],
  himportFieldsets: ['array'],
};

/** Options whose values are a few words or numbers, and which of them (ioredis reads any other as its default, or fails). */
const CHOICES: Readonly<Record<string, readonly (string | number)[]>> = {
  family: [0, 4, 6],
  // Not 'slave': a lock is a write, and belongs on the primary (see WHY).
  role: ['master'],
  protocol: [2, 3],
  replyMapping: ['legacy', 'resp3'],
  scaleReads: ['master', 'slave', 'all'],
};

/** Why a choice ioredis has is not one here. */
const WHY: Readonly<Record<string, string>> = {
  role:
    "locks are taken on the primary: role 'slave' connects to a replica, whose keys no other process locks on " +
    '(a writable replica takes the lock where nobody looks; a read-only one refuses it)',
};

export const REDIS_OPTION_KEYS: readonly string[] = Object.keys(REDIS_OPTION_TYPES);
export const CLUSTER_OPTION_KEYS: readonly string[] = Object.keys(CLUSTER_OPTION_TYPES);

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
 * Options for one server (or Sentinel's primary): known keys, each of its type, and a server they
 * name. Throws a TypeError that names the key and what is wrong, never a value that could be a
 * credential. Returns the options as the client is opened with them (a port or database given as a
 * string of digits, read as its number).
 */
export function checkRedisOptions(options: object, where: string): Record<string, unknown> {
  checkKeys(options, REDIS_OPTION_KEYS, where, 'an ioredis option');
  refuseUndefined(options, where, "to take ioredis's default");
  const given = withNumbersRead(options as Record<string, unknown>);
  const has = (key: string) => Object.hasOwn(given, key);
  if (has('sentinels')) {
    const clash = ['host', 'port', 'path'].filter(has);
    if (clash.length)
      throw new TypeError(
        `${where}: ${clash.join(', ')} beside sentinels is not read (the Sentinels name the primary); leave ${clash.length > 1 ? 'them' : 'it'} out`,
      );
    checkSentinels(given.sentinels, given.name, where);
  } else if (has('path')) {
    const clash = ['host', 'port'].filter(has);
    if (clash.length)
      throw new TypeError(
        `${where}: ${clash.join(', ')} beside path is not read (a socket path names the server); leave ${clash.length > 1 ? 'them' : 'it'} out`,
      );
    if (typeof given.path !== 'string' || given.path === '')
      throw new TypeError(`${where}: path must be a Unix socket path; got ${describeValue(given.path)}`);
  } else if (has('host')) {
    checkHost(given.host, `${where}: host`);
    if (has('port')) checkPort(given.port, `${where}: port`);
  } else if (!has('Connector')) {
    throw new TypeError(
      `${where} names no server: give host (and port), path, or sentinels and name, or pass a redis:// URL. ` +
        `(ioredis would connect to localhost:6379${has('port') ? "; to mean this machine, write host: '127.0.0.1'" : ''})`,
    );
  }
  checkValues(given, REDIS_OPTION_TYPES, where);
  return given;
}

/** A Cluster's per-node options (clusterOptions.redisOptions): the nodes are named by `cluster`, not here. */
export function checkNodeOptions(options: unknown, where: string): void {
  if (!isPlainObject(options))
    throw new TypeError(`${where} must be ioredis options (a plain object); got ${describeValue(options)}`);
  checkKeys(options, REDIS_OPTION_KEYS, where, 'an ioredis option');
  refuseUndefined(options, where, "to take ioredis's default");
  const given = withNumbersRead(options as Record<string, unknown>);
  const named = ['host', 'port', 'path', 'sentinels', 'name'].filter((key) => Object.hasOwn(given, key));
  if (named.length)
    throw new TypeError(
      `${where}: ${named.join(', ')} is not read for a Cluster's nodes; name the nodes in \`cluster\``,
    );
  if (given.db !== undefined && given.db !== 0) throw new TypeError(`${where}: a Redis Cluster has only database 0`);
  checkValues(given, REDIS_OPTION_TYPES, where);
}

/** ioredis ClusterOptions. */
export function checkClusterOptions(options: unknown, where: string): void {
  if (!isPlainObject(options))
    throw new TypeError(`${where} must be ioredis ClusterOptions (a plain object); got ${describeValue(options)}`);
  checkKeys(options, CLUSTER_OPTION_KEYS, where, 'an ioredis Cluster option');
  refuseUndefined(options, where, "to take ioredis's default");
  const { redisOptions, ...rest } = options as { redisOptions?: unknown };
  checkValues(rest, CLUSTER_OPTION_TYPES, where);
  if (Object.hasOwn(options, 'redisOptions')) checkNodeOptions(redisOptions, `${where}.redisOptions`);
}

/**
 * The ioredis options a URL stands for: its query parameters, each read as the type of its option
 * (`?connectTimeout=3000` a number, `?enableReadyCheck=false` a boolean — ioredis itself would pass
 * the text on, and a socket given "3000" as its timeout throws outside any caller), checked like
 * options given as an object; the server comes from the URL alone. An option that takes a function
 * or an object cannot be written in a URL: text in its place would be called, or read, later.
 */
export function urlOptions(url: RedisUrl, where: string): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [key, value] of url.query) {
    if (SERVER_KEYS.includes(key))
      throw new TypeError(
        `${where}: the query parameter ${printable(key).slice(0, 40)} is not read (the URL names its server and credentials before the ?)`,
      );
    checkKeys({ [key]: value }, REDIS_OPTION_KEYS, `${where}: its query`, 'an ioredis option');
    query[key] = queryValue(key, value, `${where}: the query parameter ${key}`);
  }
  checkValues(query, REDIS_OPTION_TYPES, `${where}: its query`);
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

/** The text of a URL's query parameter as its option's type: a number, a boolean, or the text. */
function queryValue(key: string, text: string, where: string): unknown {
  const types = REDIS_OPTION_TYPES[key];
  if (types.includes('number')) {
    if (!/^\d+(\.\d+)?$/.test(text)) throw new TypeError(`${where} must be a number; got ${describeValue(text)}`);
    return Number(text);
  }
  if (types.includes('boolean')) {
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    throw new TypeError(`${where} must be true or false (or 1 or 0); got ${describeValue(text)}`);
  }
  if (types.includes('string')) return text;
  throw new TypeError(
    `${where} cannot be given in a URL: it takes ${typesText(types)}; pass options ({ host, port, ${key} }) instead`,
  );
}

/** A URL or options for one server, as the ioredis options the runtime opens a client with. */
export function serverOptions(redis: unknown, where: string): Record<string, unknown> {
  if (typeof redis === 'string') return urlOptions(parseRedisUrl(redis, where), where);
  return checkRedisOptions(redis as object, where);
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

/**
 * A key given the value `undefined` names nothing: `{ host, port: process.env.REDIS_PORT }` with the
 * variable unset would connect to ioredis's default port, `{ db: cfg.db }` to database 0 — another
 * server, or other keys, than the one meant. Refused, naming the key; leaving it out still means
 * the default.
 */
export function refuseUndefined(options: object, where: string, leaveOut: string): void {
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined)
      throw new TypeError(
        `${where}: ${printable(key).slice(0, 40)} is undefined, which names nothing ` +
          `(an environment variable or setting that is not set?); give it a value, or leave the key out ${leaveOut}`,
      );
  }
}

/** A port or database given as a string of digits (from an environment variable) is read as its number, as ioredis reads it. */
function withNumbersRead(options: Record<string, unknown>): Record<string, unknown> {
  const read = { ...options };
  if (typeof read.port === 'string' && /^\d{1,5}$/.test(read.port)) read.port = Number(read.port);
  if (typeof read.db === 'string' && /^\d{1,9}$/.test(read.db)) read.db = Number(read.db);
  return read;
}

/** Each value of the type its option takes (`types`), and one of its choices where it has a few. */
function checkValues(
  given: Readonly<Record<string, unknown>>,
  types: Readonly<Record<string, readonly OptionType[]>>,
  where: string,
): void {
  for (const [key, value] of Object.entries(given)) {
    const allowed = types[key];
    if (!allowed || value === undefined) continue;
    if (!allowed.includes(typeOf(value))) {
      const hint =
        typeof value === 'string' && allowed.includes('number')
          ? ' (a number read from an environment variable needs Number(…))'
          : typeof value === 'string' && allowed.includes('boolean')
            ? " (a flag read from an environment variable needs === 'true')"
            : '';
      throw new TypeError(`${where}: ${key} must be ${typesText(allowed)}; got ${describeValue(value)}${hint}`);
    }
    if (typeof value === 'number' && !(Number.isFinite(value) && value >= 0))
      throw new TypeError(`${where}: ${key} must be a number >= 0; got ${describeValue(value)}`);
    if (key === 'db' && !Number.isInteger(value))
      throw new TypeError(`${where}: db must be a whole number >= 0; got ${describeValue(value)}`);
    const choices = CHOICES[key];
    if (choices && typeof value !== 'function' && !choices.includes(value as string | number))
      throw new TypeError(
        `${where}: ${key} must be ${choices.length > 1 ? 'one of ' : ''}${choices.map((choice) => JSON.stringify(choice)).join(', ')}; got ${describeValue(value)}` +
          (WHY[key] ? `: ${WHY[key]}` : ''),
      );
  }
}

function typeOf(value: unknown): OptionType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'number' || type === 'boolean' || type === 'string' || type === 'function' ? type : 'object';
}

function typesText(types: readonly OptionType[]): string {
  const words: Record<OptionType, string> = {
    number: 'a number',
    boolean: 'true or false',
    string: 'a string',
    function: 'a function',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  return types.map((type) => words[type]).join(' or ');
}

function checkSentinels(sentinels: unknown, name: unknown, where: string): void {
  if (!Array.isArray(sentinels) || sentinels.length === 0)
    throw new TypeError(
      `${where}: sentinels must be a non-empty list of { host, port }; got ${describeValue(sentinels)}`,
    );
  // entries(), not forEach: a hole ([, sentinel]) is an entry too, and refused here, not at the first lock.
  for (const [index, sentinel] of (sentinels as unknown[]).entries()) {
    const at = `${where}: sentinels[${index}]`;
    if (!isPlainObject(sentinel)) throw new TypeError(`${at} must be { host, port }; got ${describeValue(sentinel)}`);
    checkKeys(sentinel, ['host', 'port', 'family'], at, 'a Sentinel address key');
    refuseUndefined(sentinel, at, "to take ioredis's default");
    checkValues(withNumbersRead(sentinel as Record<string, unknown>), REDIS_OPTION_TYPES, at);
    checkHost((sentinel as { host?: unknown }).host, `${at}.host`);
    const port = (sentinel as { port?: unknown }).port;
    if (port !== undefined) checkPort(port, `${at}.port`);
  }
  if (typeof name !== 'string' || name === '')
    throw new TypeError(
      `${where}: sentinels need name, the primary's name the Sentinels know (e.g. 'mymaster'); got ${describeValue(name)}`,
    );
}
