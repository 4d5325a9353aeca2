// Without configure({ redis }) the runtime locks on REDIS_URL, else on redis://127.0.0.1:6379. A
// deployment that names its Redis in another variable (REDIS_HOST and REDIS_PORT, REDIS_URI,
// REDIS_TLS_URL, a lower-case redis_url…) and leaves REDIS_URL unset would lock on 127.0.0.1:6379,
// a Redis nobody named. The first lock is refused instead, naming the variables and never their
// values; REDIS_URL set beside them is used as always, and variables that only mention Redis (the
// test suite's own LOCKWEAVE_REDIS_SERVER, a package manager's npm_package_*) change nothing.
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

const run = promisify(execFile);
const PROGRAM = join(__dirname, 'programs', 'lock-once.js');
const PASSWORD = 'Hunter2Env';

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

async function lockOnce(
  key: string,
  env: Record<string, string>,
): Promise<{ key?: string; name?: string; message?: string }> {
  const { stdout } = await run(process.execPath, [PROGRAM, key], { env: environment(env), timeout: 30_000 });
  return JSON.parse(stdout.trim());
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
]) {
  test(`${name} set and REDIS_URL unset: the first lock is refused, naming ${name}`, async (t) => {
    const result = await lockOnce(uniqueId('order'), { [name]: server.url });
    t.is(result.name, 'TypeError', JSON.stringify(result));
    t.true(result.message?.includes(`the environment sets ${name}, `), result.message);
    t.false(result.message?.includes(String(server.port)), 'the value is not in the message');
  });
}

test('REDIS_URL set beside REDIS_HOST: the lock is taken on REDIS_URL', async (t) => {
  const key = uniqueId('order');
  const result = await lockOnce(key, { REDIS_URL: server.url, REDIS_HOST: '10.0.0.1', REDIS_PASSWORD: PASSWORD });
  t.deepEqual(result, { key: `LOCK_defaultServer_${key}` });
  t.is(await look.exists(`LOCK_defaultServer_${key}`), 1, 'the key is on the server REDIS_URL names');
});

test('variables that only mention Redis (LOCKWEAVE_REDIS_SERVER, npm_package_*, REDIS_VERSION) leave the default alone', async (t) => {
  // The default 127.0.0.1:6379 may have no Redis here: any outcome but the refusal will do.
  const result = await lockOnce(uniqueId('order'), {
    LOCKWEAVE_REDIS_SERVER: 'valkey-server',
    npm_package_scripts_redis_server: 'redis-server --port 6390',
    REDIS_VERSION: '8.0.0',
    REDIS_DOWNLOAD_URL: 'http://download.redis.io/releases/redis-8.0.0.tar.gz',
    REDIS_DOWNLOAD_SHA: '0123abcd',
  });
  t.not(result.name, 'TypeError', JSON.stringify(result));
});
