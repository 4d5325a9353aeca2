// How the runtime connects, fails and lets go of the process.
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { close, configure, defineLock, LockAcquireError, RedisConnectionError, type LockEvent } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { closedLoopbackPort } from '../helpers/loopback';
import { uniqueId } from '../helpers/redis-fixture';
import { sleep } from '../helpers/time';

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

test.serial(
  'with Redis unreachable, a process that got its LockError still exits by itself (reconnects do not hold it)',
  async (t) => {
    const url = `redis://127.0.0.1:${await closedLoopbackPort()}`;
    const program = join(__dirname, 'programs', 'fail-and-exit.js');
    // execFile rejects if the process is still running after 20 s: ioredis's reconnect timer would keep it.
    const { stdout } = await run(process.execPath, [program], {
      env: { ...process.env, REDIS_URL: url },
      timeout: 20_000,
    });
    t.is(stdout.trim(), 'LockAcquireError');
  },
);

test.serial(
  'an unreachable Redis gives LockAcquireError with the Redis error as cause, within the wait bound',
  async (t) => {
    const url = `redis://127.0.0.1:${await closedLoopbackPort()}`;
    configure({ redis: url });
    const L = defineLock({ businessFlag: 'unreachable', retries: 2, waitTime: 200 });
    const started = Date.now();
    const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
    t.true(error!.cause instanceof Error, 'the last Redis error is the cause');
    t.regex(error!.message, /last error/);
    // Bound: deadline 400 ms + one command timeout (2 s) + slack.
    t.true(Date.now() - started < 10_000);
    await close();
  },
);

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

test.serial(
  'a lock attempt on the wire when its connection is cut is made again once the connection is back: a short wait bound is enough',
  async (t) => {
    const events: LockEvent[] = [];
    configure({ redis: server.url, logger: (event) => events.push(event) });
    const admin = new Redis(server.url);
    t.teardown(() => admin.disconnect());
    // One attempt now, one more at 1.5 s. An attempt the cut left unanswered would hold the caller to
    // that deadline (ioredis drops it silently and its 2 s timeout is later): the caller would fail.
    const L = defineLock({ businessFlag: 'cutInFlight', retries: 1, waitTime: 1_500 });
    await (await L.acquire('warm-up'))!.release(); // the connection is open and the scripts loaded
    await admin.client('PAUSE', 5_000, 'WRITE'); // the attempt stays on the wire, unanswered
    const startedAt = Date.now();
    const pending = L.acquire('A');
    await sleep(300);
    await admin.client('KILL', 'TYPE', 'normal'); // not the admin's own (SKIPME yes)
    await admin.client('UNPAUSE');
    const lease = await pending;
    t.true(lease!.held, `held after ${Date.now() - startedAt} ms`);
    // The attempt failed when its connection closed, not when a timer ran out.
    const failures = events.flatMap((event) =>
      event.type === 'error' && event.during === 'acquire' ? [event.error.message] : [],
    );
    t.true(
      failures.length > 0 && failures.every((message) => /Connection is closed/.test(message)),
      failures.join('; '),
    );
    await lease!.release();
    await close();
  },
);

test.serial(
  'a closed port: the error names the server and the cause, attempts keep their schedule, and no log line says the key is held',
  async (t) => {
    const closedPort = await closedLoopbackPort();
    const url = `redis://127.0.0.1:${closedPort}`;
    const events: LockEvent[] = [];
    configure({ redis: url, logger: (event) => events.push(event) });
    const L = defineLock({ businessFlag: 'closedPort', retries: 10, waitTime: 200 });
    const started = Date.now();
    const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
    t.true(error!.cause instanceof RedisConnectionError);
    t.regex(error!.message, new RegExp(`Redis at 127\\.0\\.0\\.1:${closedPort} is unreachable: connect ECONNREFUSED`));
    // Each attempt fails at once while Redis is known to be down, instead of waiting out a reconnect.
    t.true(error!.attempts >= 10, `attempts ${error!.attempts}`);
    t.true(Date.now() - started < 10_000, 'within the wait bound (2 s) plus generous slack');
    const waiting = events.filter((e) => e.type === 'waiting');
    t.true(waiting.length > 0);
    t.true(
      waiting.every((e) => e.type === 'waiting' && e.error instanceof RedisConnectionError),
      'a failed attempt is not reported as a held key',
    );
    await close();
  },
);

test.serial('a database the server does not have fails at once and locks nothing in database 0', async (t) => {
  const own = await startRedisServer(['--databases', '4']);
  const look = new Redis(own.url);
  try {
    configure({ redis: `${own.url}/9` });
    const L = defineLock({ businessFlag: 'noDb', retries: 3, waitTime: 5_000 });
    const started = Date.now();
    const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
    t.true(Date.now() - started < 5_000, 'no waiting: retrying cannot help');
    t.is(error!.attempts, 1);
    t.regex(error!.message, /Redis at 127\.0\.0\.1:\d+: it has no database 9/);
    t.true((error!.cause as RedisConnectionError).fatal);
    t.deepEqual(await look.keys('*'), [], 'nothing locked in database 0');
  } finally {
    await close();
    look.disconnect();
    await own.stop();
  }
});

test.serial('wrong credentials fail at once, saying so', async (t) => {
  const own = await startRedisServer();
  const admin = new Redis(own.url);
  await admin.config('SET', 'requirepass', 'right-password');
  admin.disconnect();
  try {
    configure({ redis: `redis://:wrong-password@127.0.0.1:${own.port}` });
    const L = defineLock({ businessFlag: 'auth', retries: 3, waitTime: 5_000 });
    const started = Date.now();
    const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
    t.true(Date.now() - started < 5_000, 'no waiting: retrying cannot help');
    t.regex(error!.message, new RegExp(`Redis at 127\\.0\\.0\\.1:${own.port}: it refused the credentials`));
  } finally {
    await close();
    await own.stop();
  }
});

test.serial(
  'a rediss:// URL for a server without TLS: the error says so and the process still exits by itself',
  async (t) => {
    const program = join(__dirname, 'programs', 'tls-mismatch-exit.js');
    // execFile rejects if the process is still running after 30 s.
    const { stdout } = await run(process.execPath, [program, `rediss://127.0.0.1:${server.port}`], { timeout: 30_000 });
    t.regex(stdout, /^LockAcquireError: .*Redis at 127\.0\.0\.1:\d+ is unreachable: .*TLS handshake/);
  },
);
