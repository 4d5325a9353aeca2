// Without configure({ redis }) the runtime locks on REDIS_URL, else on redis://127.0.0.1:6379. A
// deployment that names its Redis in another variable (REDIS_HOST and REDIS_PORT, REDIS_URI,
// REDIS_TLS_URL, a lower-case redis_url…) and leaves REDIS_URL unset would lock on 127.0.0.1:6379,
// a Redis nobody named. The first lock is refused instead, naming the variables and never their
// values; REDIS_URL set beside them is used as always. A package manager's variables count like
// any other when they are settings (package.json's "config", an .npmrc key); only variables that
// mention Redis without naming a server (the test suite's own LOCKWEAVE_REDIS_SERVER, a copy of a
// script's command line or of the dependency lists) change nothing.
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

const run = promisify(execFile);
const PROGRAM = join(__dirname, 'programs', 'lock-once.js');
const ASK_ONLY = join(__dirname, 'programs', 'default-server-named.js');
const PASSWORD = 'Hunter2Env';
/** A Redis URL that is only asked about, never connected to. */
const ASKED_PORT = '6391';
const ASKED_URL = `redis://127.0.0.1:${ASKED_PORT}`;

let server: RedisServer;
let look: Redis;
test.before(async () => {
  server = await startRedisServer();
  look = new Redis(server.url);
});
test.after.always(async () => {
  look?.disconnect();
  await server?.stop();
});

/** This process's environment without REDIS_URL or anything else that names a Redis, and `env` on top. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/redis|valkey|keydb|dragonfly/i.test(name)),
  );
  return { ...base, ...env };
}

type Outcome = { key?: string; name?: string; message?: string };

async function lockOnce(key: string, env: Record<string, string>): Promise<Outcome> {
  const { stdout } = await run(process.execPath, [PROGRAM, key], { env: environment(env), timeout: 30_000 });
  return JSON.parse(stdout.trim());
}

/**
 * What the first lock would make of `env`, asked without a lock: the default is never connected to.
 * Every ask is made as the file's tests are declared, and one process answers them all when the
 * first test awaits its answer (a Node start per variant was most of this file's time).
 */
const asked: NodeJS.ProcessEnv[] = [];
let answers: Promise<Outcome[]> | undefined;
function defaultRefused(env: Record<string, string>): () => Promise<Outcome> {
  const index = asked.push(environment(env)) - 1;
  return async () => {
    answers ??= new Promise<Outcome[]>((resolve, reject) => {
      const child = execFile(process.execPath, [ASK_ONLY], { timeout: 60_000, maxBuffer: 1 << 24 }, (error, stdout) =>
        error ? reject(error) : resolve(JSON.parse(stdout.trim())),
      );
      child.stdin?.end(JSON.stringify(asked));
    });
    return (await answers)[index];
  };
}

test('REDIS_URL unset beside REDIS_HOST, REDIS_PORT and REDIS_PASSWORD: the first lock is refused, naming them, never their values', async (t) => {
  const key = uniqueId('order');
  const result = await lockOnce(key, {
    REDIS_HOST: '127.0.0.1',
    REDIS_PORT: String(server.port),
    REDIS_PASSWORD: PASSWORD,
  });
  t.is(result.name, 'TypeError', JSON.stringify(result));
  t.regex(
    result.message ?? '',
    /REDIS_URL is not set .* the environment sets REDIS_HOST, REDIS_PASSWORD, REDIS_PORT, /,
  );
  t.regex(result.message ?? '', /set REDIS_URL .* or call configure\(\{ redis \}\)/);
  t.false(result.message?.includes(PASSWORD), 'the password is not in the message');
  t.false(result.message?.includes(String(server.port)), 'the port is not in the message');
  t.is(await look.exists(`LOCK_defaultServer_${key}`), 0);
});

for (const name of [
  'REDIS_URI',
  'REDIS_ADDR',
  'REDIS_SERVER',
  'REDIS_ENDPOINT',
  'REDIS_TLS_URL',
  'redis_url',
  'Redis_Url',
  'REDISHOST',
  'VALKEY_URL',
  // Not address words of a list: any name holding the server's kind counts.
  'REDIS_HOSTS',
  'REDIS_PRIMARY',
  'REDIS_SECRET',
  'KEYDB_URL',
  'DRAGONFLY_HOST',
  // A package manager's settings: package.json's "config" (npm and bun hand it to every script, and
  // it is how a package takes settings), and a key of an .npmrc, though both start with npm_.
  'npm_package_config_redis_url',
  'npm_config_redis_host',
  // Servers that speak the protocol under names of their own, managed services' names, Sentinels.
  'GARNET_HOST',
  'KVROCKS_URL',
  'TAIR_URL',
  'MEMURAI_HOST',
  'ELASTICACHE_ENDPOINT',
  'MEMORYSTORE_HOST',
  'UPSTASH_REDIS_REST_URL',
  'KV_URL',
  'SENTINEL_HOSTS',
  'REDICT_URL',
  'PIKA_HOST',
  // Any name at all whose value is a Redis URL.
  'CACHE_URL',
  'DATABASE_URL',
]) {
  const answer = defaultRefused({ [name]: ASKED_URL });
  test(`${name} set and REDIS_URL unset: the default is refused, naming ${name}`, async (t) => {
    const result = await answer();
    t.is(result.name, 'TypeError', JSON.stringify(result));
    t.true(result.message?.includes(`the environment sets ${name}, `), result.message);
    t.false(result.message?.includes(ASKED_PORT), 'the value is not in the message');
  });
}

// The same check stands before the first lock: a name set to this test's server, whatever it is
// called, refuses the lock rather than take it on the default.
test('CACHE_URL set to a live Redis and REDIS_URL unset: the first lock is refused, naming CACHE_URL', async (t) => {
  const key = uniqueId('order');
  const result = await lockOnce(key, { CACHE_URL: server.url });
  t.is(result.name, 'TypeError', JSON.stringify(result));
  t.true(result.message?.includes('the environment sets CACHE_URL, '), result.message);
  t.false(result.message?.includes(String(server.port)), 'the value is not in the message');
  t.is(await look.exists(`LOCK_defaultServer_${key}`), 0);
});

test('REDIS_URL set beside REDIS_HOST: the lock is taken on REDIS_URL', async (t) => {
  const key = uniqueId('order');
  const result = await lockOnce(key, { REDIS_URL: server.url, REDIS_HOST: '10.0.0.1', REDIS_PASSWORD: PASSWORD });
  t.deepEqual(result, { key: `LOCK_defaultServer_${key}` });
  t.is(await look.exists(`LOCK_defaultServer_${key}`), 1, 'the key is on the server REDIS_URL names');
});

const mentions = {
  LOCKWEAVE_REDIS_SERVER: 'valkey-server',
  // What pnpm and yarn 1 copy of an app's package.json into every script's environment.
  npm_package_scripts_redis_server: 'redis-server --port 6390',
  npm_package_dependencies_ioredis: '^5.8.2',
  npm_package_devDependencies__valkey_valkey_glide: '^2.5.2',
  npm_package_peerDependenciesMeta_redis_optional: 'true',
  REDIS_VERSION: '8.0.0',
  REDIS_DOWNLOAD_URL: 'http://download.redis.io/releases/redis-8.0.0.tar.gz',
  REDIS_DOWNLOAD_SHA: '0123abcd',
};
const mentionsOnly = defaultRefused(mentions);
const mentionsAndHost = defaultRefused({ ...mentions, REDIS_HOST: '10.0.0.1' });
test('variables that only mention Redis (LOCKWEAVE_REDIS_SERVER, copies of package.json scripts and dependencies, REDIS_VERSION) leave the default alone', async (t) => {
  const result = await mentionsOnly();
  t.notRegex(result.message ?? '', /REDIS_URL is not set/, JSON.stringify(result));
  t.deepEqual(result, {});
  // The same question is answered with the refusal once one variable among them names a server.
  const named = await mentionsAndHost();
  t.regex(named.message ?? '', /REDIS_URL is not set .* the environment sets REDIS_HOST, /, JSON.stringify(named));
});

// A value names a Redis as it is written in the files that set it: with the quotes docker's
// --env-file, systemd's Environment= and many .env loaders keep, a socket's URL or path, a bare
// address on Redis's or Sentinel's port, anywhere in the value (inside JSON, in a list). Asked
// without a lock: before this was read, each of them sent the first lock to the default, which a
// test must not touch.
for (const [name, value] of Object.entries({
  CACHE_URL: '"redis://127.0.0.1:6390"',
  QUEUE_URL: "'rediss://alice:Hunter2Env@127.0.0.1:6390/2'",
  JOBS_URL: ' \t"valkey://127.0.0.1:6390"\n',
  CACHE_SOCKET: 'unix:///run/redis/redis-server.sock',
  QUEUE_SOCKET: '"unix://:Hunter2Env@/var/run/valkey/valkey.sock?db=2"',
  CACHE_SOCKET_PATH: '/var/run/redis/redis.sock',
  BROKER_URL: 'redis+socket:///tmp/redis.sock',
  CACHE_ADDR: '10.0.0.5:6379',
  CACHE_NODES: '10.0.0.1:6379,10.0.0.2:6379, cache-3.internal:6379',
  QUEUE_WATCHERS: "'[::1]:26379 [fd00::2]:26379'",
  LINKED_CACHE: 'tcp://172.17.0.5:6379',
  // Inside a value: the config package's JSON override, options as JSON, kombu's and Celery's
  // Sentinel list, an address with its database, the single-slash socket URL, a `.socket` path.
  NODE_CONFIG: '{"redis":{"url":"redis://127.0.0.2:6379"}}',
  CACHE_OPTS: '{"host":"127.0.0.2","port":6379}',
  WATCHER_OPTS: "{sentinels: [{host: '127.0.0.2', port: '26379'}]}",
  CELERY_BROKER_URL: 'sentinel://127.0.0.2:26379;sentinel://127.0.0.3:26379',
  CACHE_DB_ADDR: 'cache.internal:6379/0',
  JOBS_BROKER: 'amqp-fallback cache.internal:6379/2, [::1]:26379',
  CACHE_UNIX: 'unix:/var/run/redis/redis.sock',
  CACHE_SOCKET_FILE: '/var/run/valkey/valkey-server.socket',
  APP_SETTINGS: 'mode=prod;cache=unix:///run/redis/redis.sock;debug=0',
})) {
  const answer = defaultRefused({ [name]: value });
  test(`${name}=${JSON.stringify(value)} and REDIS_URL unset: the default is refused, naming ${name}`, async (t) => {
    const result = await answer();
    t.is(result.name, 'TypeError', JSON.stringify(result));
    t.regex(result.message ?? '', new RegExp(`REDIS_URL is not set .* the environment sets ${name}, `));
    t.false(result.message?.includes(PASSWORD), 'the value is not in the message');
  });
}

const otherServers = defaultRefused({
  DOCKER_HOST: 'unix:///var/run/docker.sock',
  CONTAINER_HOST: '"unix:///run/user/1000/podman/podman.sock"',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
  TOOLS_PATH: '/opt/redis/bin:/usr/local/bin',
  HOME: '/home/redis',
  APP_DIR: '/srv/redis-dashboard',
  SSH_AUTH_SOCK: '/tmp/ssh-redis/agent.1',
  CACHE_ADDR: 'cache.internal:6380',
  MEMCACHED_URL: '"memcached://127.0.0.1:11211"',
  APP_PORT: '6379',
});
test('values that name another server or none (a docker or D-Bus socket, a PATH or HOME under a redis folder, another port) leave the default alone', async (t) => {
  t.deepEqual(await otherServers(), {});
});

// Read anywhere in a value, a form is still word-bounded, and some text that holds a Redis's port
// or scheme names no server of this process: a port mapping, a URL's path after the port, a longer
// port or scheme, a password of digits, a command line, package.json's description.
const mentionsOfPorts = defaultRefused({
  START_CMD: 'docker run -d -p 6379:6379 -p 127.0.0.1:26379:26379 valkey/valkey',
  DOCS_URL: 'https://docs.internal:6379/guide',
  CACHE_ADDR: 'cache.internal:16379,cache.internal:63790',
  CACHE_OPTS: '{"host":"127.0.0.2","port":6380,"sentinelPort":26380}',
  OTHER_URL: 'myredis://127.0.0.2:6390',
  BROKER_URL: 'amqp://guest:6379@127.0.0.2:5672',
  DOCKER_SOCKET: '/var/run/docker.socket',
  npm_lifecycle_script: 'redis-cli -u redis://127.0.0.1:6390 ping && ava',
  npm_package_description: 'A dashboard for the Redis at localhost:6379',
});
const packageConfig = defaultRefused({ npm_package_config_cache: 'localhost:6379' });
test('text that holds 6379 or a Redis scheme but names no server leaves the default alone', async (t) => {
  t.deepEqual(await mentionsOfPorts(), {});
  // package.json's "config" is a setting, and is read.
  const config = await packageConfig();
  t.regex(config.message ?? '', /the environment sets npm_package_config_cache, /, JSON.stringify(config));
});

const filler = `${'=/a'.repeat(1400)} `;
const namedFar = defaultRefused({ BIG_BLOB: `${filler}redis://127.0.0.2:6379` });
const namedNear = defaultRefused({ BIG_BLOB: `${'a '.repeat(1000)}redis://127.0.0.2:6379 ${filler}` });
test('only the first 4 KB of a value are read: a Redis named further in is not seen', async (t) => {
  t.true(filler.length > 4096);
  t.deepEqual(await namedFar(), {});
  const near = await namedNear();
  t.regex(near.message ?? '', /the environment sets BIG_BLOB, /, JSON.stringify(near));
});
