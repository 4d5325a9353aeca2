// How the runtime fails and recovers on a node-redis client: errors that name the server and the
// cause within the wait bound, locking again after a restart, and a process that exits without
// close(). (The ioredis side of the same promises: connection.test.ts.)
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { close, configure, defineLock, LockAcquireError, RedisConnectionError } from 'lockweave';
import { createClient } from 'redis';
import { startRedisServer } from '../helpers/redis-server';
import { eventually } from '../helpers/time';

async function connected(url: string) {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

test.serial(
  'Redis going down: LockAcquireError within the wait bound, its cause naming the server; locking again once it is back',
  async (t) => {
    const own = await startRedisServer();
    const client = await connected(own.url);
    try {
      configure({ redis: client });
      const L = defineLock({ businessFlag: 'nodeRedisDown', retries: 10, waitTime: 200 });
      await (await L.acquire('A'))!.release();
      await own.kill();
      const started = Date.now();
      const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
      const waited = Date.now() - started;
      t.true(error!.cause instanceof RedisConnectionError, String(error!.cause));
      t.regex(error!.message, new RegExp(`Redis at 127\\.0\\.0\\.1:${own.port} is unreachable`));
      t.true(
        waited < 2_000 + 2_000 + 2_000,
        `the wait bound (2 s) plus one command timeout and slack; took ${waited} ms`,
      );
      await own.restart();
      const again = defineLock({ businessFlag: 'nodeRedisDown', retries: 40, waitTime: 250 });
      const lease = await again.acquire('A');
      t.true(lease!.held, 'node-redis reconnected by itself and the lock works again');
      await lease!.release();
    } finally {
      await close();
      client.destroy();
      await own.stop();
    }
  },
);

test.serial('a release that failed while Redis was down is sent again once the client is back', async (t) => {
  const own = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always']);
  const client = await connected(own.url);
  try {
    configure({ redis: client });
    const L = defineLock({ businessFlag: 'nodeRedisResend', lockTime: 60_000 });
    const lease = await L.acquire('A');
    const key = lease!.key;
    await client.set('marker', 'kept'); // shows the data outlived the restart (the AOF)
    await own.kill();
    await lease!.release(); // fails: Redis is down; never throws
    await own.restart();
    const look = await connected(own.url);
    t.is(await look.get('marker'), 'kept');
    await eventually(async () => (await look.get(key)) === null, { timeoutMs: 10_000, everyMs: 50 });
    t.is(await look.get(key), null, 'the key was released soon after the reconnect, not at the end of its 60 s lease');
    look.destroy();
  } finally {
    await close();
    client.destroy();
    await own.stop();
  }
});

for (const family of ['redis', 'redis5']) {
  test.serial(
    `${family}: with Redis gone, the process gets its LockAcquireError and exits without close() (the subscriber does not hold it)`,
    async (t) => {
      const own = await startRedisServer();
      const child = spawn(process.execPath, [join(__dirname, 'programs', 'node-redis-down-exit.js'), family], {
        env: { ...process.env, REDIS_URL: own.url },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout!.on('data', (data) => {
        out += data;
        if (out === 'ready\n') void own.kill().then(() => child.stdin!.write('down\n'));
      });
      const code = await new Promise<number | string | null>((resolve) => {
        const killer = setTimeout(() => (child.kill('SIGKILL'), resolve('killed after 20 s: it hung')), 20_000);
        child.once('exit', (exitCode) => (clearTimeout(killer), resolve(exitCode)));
      });
      await own.stop();
      t.is(code, 0, out);
      t.regex(out, new RegExp(`LockAcquireError after \\d+ ms: .*Redis at 127\\.0\\.0\\.1:${own.port} is unreachable`));
    },
  );
}
