// A process that waited for a lock on a Redis Cluster the runtime opened exits by itself after its
// last lock, without close(): the Cluster's node connections and the sharded subscribers are
// unref'd while idle.
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { defineLock } from 'lockweave';
import { useRedisCluster } from '../helpers/redis-cluster';
import { uniqueId } from '../helpers/redis-fixture';
import { eventually, sleep } from '../helpers/time';

const fixture = useRedisCluster(test);
/** Scheduling noise on a loaded machine, and ioredis's command timers (2 s) that outlive their commands. */
const EXIT_BOUND_MS = 5_000;

for (const value of ['plain', '{tagged}:x']) {
  test(`a process woken by a sharded notice exits within ${EXIT_BOUND_MS} ms of its last lock, without close() (key ${value})`, async (t) => {
    const businessFlag = uniqueId('exit');
    const lock = defineLock({ businessFlag });
    const held = await lock.acquire(value);
    const child = spawn(process.execPath, [join(__dirname, 'programs', 'cluster-wait-exit.js'), businessFlag, value], {
      env: { ...process.env, CLUSTER_URLS: JSON.stringify(fixture.cluster.urls) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    t.teardown(() => clearTimeout(killer));
    await eventually(() => out.includes('waiting'), { timeoutMs: 20_000, everyMs: 20 });
    // Let its first attempt find the key held, so it waits in line and listens.
    await sleep(1_000);
    const releasedAt = Date.now();
    await held!.release();
    const { code, at } = await exited;
    const gotAt = Number(out.match(/got (\d+)/)?.[1]);
    t.is(code, 0, err);
    t.log(
      `woken ${gotAt - releasedAt} ms after the release (its next scheduled attempt was up to 10 s away); exited ${at - gotAt} ms after its last lock`,
    );
    t.true(gotAt - releasedAt < 5_000, `woken by the notice, not its schedule: ${gotAt - releasedAt} ms`);
    t.true(at - gotAt < EXIT_BOUND_MS, `exited ${at - gotAt} ms after its last lock`);
  });
}

test('with every node unreachable, a lock fails within its bound and the process still exits by itself', async (t) => {
  // Ports nothing listens on: the cluster the runtime opens can never become ready.
  const child = spawn(
    process.execPath,
    [join(__dirname, 'programs', 'cluster-wait-exit.js'), 'unreachable', 'k', '500'],
    {
      env: { ...process.env, CLUSTER_URLS: JSON.stringify(['redis://127.0.0.1:1', 'redis://127.0.0.1:2']) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  const startedAt = Date.now();
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  t.teardown(() => clearTimeout(killer));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const tookMs = Date.now() - startedAt;
  t.log(
    `failed and exited ${tookMs} ms after it started (the first command waits up to 3 s for the cluster to be ready, later ones fail at once; the give-up's leave is sent again until the key its lost attempt may have set would lapse (lockTime, 30 s: lock/clean-up.ts), and the cluster stops reconnecting 10 s after that last command)`,
  );
  t.is(code, 1);
  t.regex(err, /LockAcquireError[\s\S]*unreachable/);
  // ~3 s + 0.5 s + 30 s + 10 s, and scheduling noise.
  t.true(tookMs < 60_000, `exited after ${tookMs} ms`);
});
