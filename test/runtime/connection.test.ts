// How the runtime connects, fails and lets go of the process.
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { close, configure, defineLock, LockAcquireError } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

const run = promisify(execFile);
let server: RedisServer;
test.before(async () => {
  server = await startRedisServer();
});
test.after.always(async () => {
  await close();
  await server?.stop();
});

test.serial('without configure(), the runtime connects lazily to REDIS_URL; the process exits by itself', async (t) => {
  const value = uniqueId('order');
  const program = join(__dirname, 'programs', 'lock-and-exit.js');
  const started = Date.now();
  const { stdout } = await run(process.execPath, [program, value], {
    env: { ...process.env, REDIS_URL: server.url },
    timeout: 20_000,
  });
  t.is(stdout.trim(), `LOCK_exitCheck_${value}`);
  // It did not hang on an open connection: 20 s would have killed it (and rejected above).
  t.true(Date.now() - started < 20_000);
});

test.serial('with Redis unreachable, a process that got its LockError still exits by itself (reconnects do not hold it)', async (t) => {
  const dead = await startRedisServer();
  const url = dead.url;
  await dead.stop();
  const program = join(__dirname, 'programs', 'fail-and-exit.js');
  // execFile rejects if the process is still running after 20 s: ioredis's reconnect timer would keep it.
  const { stdout } = await run(process.execPath, [program], { env: { ...process.env, REDIS_URL: url }, timeout: 20_000 });
  t.is(stdout.trim(), 'LockAcquireError');
});

test.serial('an unreachable Redis gives LockAcquireError with the Redis error as cause, within the wait bound', async (t) => {
  const dead = await startRedisServer();
  const url = dead.url;
  await dead.stop();
  configure({ redis: url });
  const L = defineLock({ businessFlag: 'unreachable', retries: 2, waitTime: 200 });
  const started = Date.now();
  const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
  t.true(error!.cause instanceof Error, 'the last Redis error is the cause');
  t.regex(error!.message, /last error/);
  // Bound: deadline 400 ms + one command timeout (2 s) + slack.
  t.true(Date.now() - started < 10_000);
  await close();
});

test.serial('a caller-supplied ioredis client is used as is and left open by close()', async (t) => {
  const client = new Redis(server.url);
  configure({ redis: client });
  const L = defineLock({ businessFlag: 'supplied' });
  const lease = await L.acquire('A');
  t.is(await client.get(lease!.key), (lease as { token: string }).token);
  await lease!.release();
  await close();
  t.is(await client.ping(), 'PONG');
  client.disconnect();
});

test.serial('locking works again after Redis restarts, without restarting the application', async (t) => {
  const own = await startRedisServer();
  configure({ redis: own.url });
  const L = defineLock({ businessFlag: 'restart', retries: 20, waitTime: 250 });
  const before = await L.acquire('A');
  await before!.release();
  await own.kill();
  await own.restart();
  const after = await L.acquire('A');
  t.true(after!.held);
  await after!.release();
  await close();
  await own.stop();
});
