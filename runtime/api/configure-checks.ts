// What configure() refuses, before anything changes: a refused call leaves the settings as they
// were. Configuration that names no server, names it wrongly or has unknown keys is a TypeError
// here, not a connection to 127.0.0.1:6379 found out at the first lock. Messages name the option
// and what is wrong with it, and never print a URL's credentials or an options object's values.
import { prefixProblem } from '../base/key-names';
import { OPTION_NAMES, valueProblem, type OptionName } from '../base/option-table';
import { describeValue } from '../base/redis-address';
import { checkKeys, isPlainObject, refuseUndefined, serverOptions } from '../base/redis-options';
import { isGlideClient } from '../store/glide-client';
import { assertOpenGlideClient } from '../store/glide-store';
import { isIORedisClient } from '../store/ioredis-client';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisSentinel } from '../store/node-redis-client';
import { assertOpenNodeRedisClient } from '../store/node-redis-store';
import { isClusterConfig } from './cluster-config';
import { CONFIGURE_KEYS, type ConfigureOptions, type RedlockServer } from './settings';
import { serverAddress } from './store-factory';

const WHERE = 'lockweave: configure()';

export function assertConfigureOptions(options: unknown): asserts options is ConfigureOptions {
  if (!isPlainObject(options)) throw new TypeError(`${WHERE} takes an options object; got ${describeValue(options)}`);
  checkKeys(options, CONFIGURE_KEYS, WHERE, 'an option of configure()');
  const { redis, store, logger, releaseChannel, defaults, prefix } = options as ConfigureOptions;
  // `{ prefix: process.env.LOCK_PREFIX }` with the variable unset names no prefix; read as "the
  // default", it would move every lock to other keys (LOCK_…) beside the ones other processes hold.
  // The same for the defaults and the release channel. A logger left undefined is none; `redlock:
  // undefined` takes the Redlock servers away, and a lock that asks for Redlock then fails loudly.
  const { logger: _logger, redlock: _redlock, redis: _redis, store: _store, ...named } = options as ConfigureOptions;
  refuseUndefined(named, WHERE, 'to keep what an earlier configure() set');
  // `{ redis: process.env.REDIS_URL }` with the variable unset names nothing; read as "the
  // default", it would move locks to a server nobody named.
  if (('redis' in options || 'store' in options) && redis === undefined && store === undefined) {
    throw new TypeError(
      `${WHERE}: ${'redis' in options ? 'redis' : 'store'} is undefined, which names no server; ` +
        'leave the key out to keep the current connection, or name one (a redis:// URL, options with host, a client)',
    );
  }
  if (redis !== undefined) assertRedisOption(redis);
  if (store !== undefined) assertStore(store);
  if ('redlock' in options) assertRedlockOption((options as ConfigureOptions).redlock);
  if (logger !== undefined && typeof logger !== 'function') {
    throw new TypeError(
      `${WHERE}: logger must be a function that receives lock events (e.g. consoleLogger()); got ${describeValue(logger)}`,
    );
  }
  if (releaseChannel !== undefined && (typeof releaseChannel !== 'string' || releaseChannel === '')) {
    throw new TypeError(`${WHERE}: releaseChannel must be a non-empty string; got ${describeValue(releaseChannel)}`);
  }
  if (prefix !== undefined) {
    const problem = prefixProblem(prefix);
    if (problem) throw new TypeError(`${WHERE}: prefix: ${problem}`);
  }
  if (Object.hasOwn(options, 'defaults')) assertDefaults(defaults);
}

function assertDefaults(defaults: unknown): void {
  if (!isPlainObject(defaults))
    throw new TypeError(`${WHERE}: defaults must be an object of lock options; got ${describeValue(defaults)}`);
  if ('onFail' in defaults) {
    throw new TypeError(
      `${WHERE}: defaults cannot set onFail: what a woven method does on failure is compiled into it; set it in the tag or the plugin's defaults`,
    );
  }
  // One place for the runtime's prefix: configure({ prefix }). Two would leave which one wins to be guessed.
  if ('prefix' in defaults) throw new TypeError(`${WHERE}: the prefix is configure({ prefix }), not a default`);
  checkKeys(
    defaults,
    OPTION_NAMES.filter((key) => key !== 'onFail' && key !== 'prefix'),
    `${WHERE}: defaults`,
    'a lock option',
  );
  // `defaults: { redlock: cfg.redlock }` with the setting missing must not turn off another
  // module's redlock: true (its locks would move to the one Redis), nor fencing, nor replicas.
  refuseUndefined(defaults, `${WHERE}: defaults`, 'to keep what an earlier configure() set');
  for (const [name, value] of Object.entries(defaults)) {
    const problem = valueProblem(name as OptionName, value);
    if (problem) throw new TypeError(`${WHERE}: defaults: ${problem}`);
  }
}

/** A LockStore by the verbs every store has: anything else would fail at the first lock. */
function assertStore(store: unknown): void {
  // The members LockStore requires (store/lock-store.ts); the optional ones are looked for where used.
  const verbs = ['tryAcquire', 'tryAcquireInTurn', 'renew', 'release', 'leave', 'listen', 'unlisten', 'close'];
  if (
    typeof store !== 'object' ||
    store === null ||
    verbs.some((verb) => typeof (store as Record<string, unknown>)[verb] !== 'function')
  ) {
    throw new TypeError(
      `${WHERE}: store must be a LockStore (with ${verbs.join(', ')}), e.g. new MemoryLockStore(); got ${describeValue(store)}`,
    );
  }
}

/**
 * Anything but an ioredis client, a node-redis or GLIDE client, a URL, a Cluster's nodes or ioredis options
 * that name a server is refused here. ioredis would read any other object as options and connect
 * to its default, 127.0.0.1:6379: locks on a different Redis than the one the caller meant.
 */
function assertRedisOption(redis: unknown): void {
  const where = `${WHERE}: redis`;
  if (typeof redis === 'string') return void serverOptions(redis, where);
  if (isClusterConfig(redis)) return; // checked by isClusterConfig, throwing when malformed
  if (isPlainObject(redis)) return void serverOptions(redis, where);
  if (typeof redis === 'object' && redis !== null) {
    // node-redis first: a user with only node-redis need not load ioredis to be told yes or no.
    if (isNodeRedisSentinel(redis)) {
      throw new TypeError(
        'lockweave: configure({ redis }) does not support a node-redis Sentinel client (createSentinel) yet; ' +
          'pass ioredis options `{ sentinels: [{ host, port }], name }` (the runtime opens a client that follows failovers), or an ioredis Redis made with them.',
      );
    }
    if (isNodeRedisClient(redis) || isNodeRedisCluster(redis)) return assertOpenNodeRedisClient(redis);
    if (isGlideClient(redis)) return assertOpenGlideClient(redis);
    if (isIORedisClient(redis)) return;
  }
  throw new TypeError(
    `lockweave: configure({ redis }) takes an ioredis Redis or Cluster, a node-redis client, a Valkey GLIDE client, a redis:// URL, or ioredis options; got ${describeValue(redis)}. ` +
      '(Any other object would be read as options and connect to 127.0.0.1:6379. For a Redis Cluster the runtime opens, pass its node URLs.)',
  );
}

/**
 * Redlock's servers are refused at configure() unless there are at least 3, each a redis:// or
 * rediss:// URL, an ioredis `Redis` or a connected node-redis client, and no two the same server:
 * a server named twice would count twice towards the majority, and a lock held on it alone would
 * not be a lock.
 */
function assertRedlockOption(redlock: unknown): void {
  if (redlock === undefined) return;
  const usage =
    'configure({ redlock }) takes an array of at least 3 independent Redis servers (redis:// URLs, ioredis clients or node-redis clients)';
  if (!Array.isArray(redlock)) throw new TypeError(`lockweave: ${usage}; got ${describeValue(redlock)}`);
  if (redlock.length < 3) {
    throw new TypeError(
      `lockweave: ${usage}; got ${redlock.length}: a majority of 3 or more servers is what lets a lock outlive one server's loss`,
    );
  }
  const seen = new Map<unknown, number>();
  // entries(), not forEach: a hole ([, a, b, c]) is a server too, and refused here, not later.
  for (const [index, server] of (redlock as unknown[]).entries()) {
    const where = `lockweave: configure({ redlock }): server ${index}`;
    if (typeof server === 'string') {
      serverOptions(server, where);
    } else if (isNodeRedisCluster(server)) {
      throw new TypeError(`${where} is a node-redis cluster; Redlock takes independent single servers`);
    } else if (isNodeRedisClient(server)) {
      assertOpenNodeRedisClient(server);
    } else if (isGlideClient(server)) {
      throw new TypeError(
        `${where} is a Valkey GLIDE client; Redlock's servers are redis:// URLs, ioredis or node-redis clients`,
      );
    } else if (!isIORedisClient(server) || server.isCluster) {
      throw new TypeError(
        `${where} is not a redis:// URL, an ioredis Redis or a node-redis client (an ioredis Cluster is not one independent server); got ${describeValue(server)}`,
      );
    }
    const address = serverAddress(server as RedlockServer);
    for (const id of [server, address]) {
      const earlier = seen.get(id);
      if (earlier !== undefined)
        throw new TypeError(
          `${where} is the same server as server ${earlier} (${address}); Redlock's servers must be independent`,
        );
      seen.set(id, index);
    }
  }
}
