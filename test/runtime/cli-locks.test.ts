// `lockweave locks` and `lockweave unlock` as an operator runs them: real processes against a real
// redis-server. A stuck lock is seen with its TTL and waiters, is not removed without --force, and
// with --force is removed and announced, so a waiter in another process takes it at once rather
// than at its next scheduled attempt a minute later.
import test from 'ava';
import { lock } from 'lockweave';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';
import { useRedis, uniqueId } from '../helpers/redis-fixture';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { until } from '../helpers/time';

const fixture = useRedis(test);
const runChild = childRunner(2);
const lockweave = (args: readonly string[]) =>
  runChild(process.execPath, [CLI, ...args, '--redis', fixture.server.url], { cwd: ROOT });

test("locks lists held keys with TTL, waiters and fence, and leaves out lockweave's own keys", async (t) => {
  const businessFlag = uniqueId('listed');
  const held = await lock({ businessFlag, key: 'A', lockTime: 60_000, fencing: true });
  const keyless = await lock({ businessFlag, keyless: true, lockTime: 60_000 });
  const ran = await lockweave(['locks', '--match', `LOCK_${businessFlag}*`]);
  t.is(ran.status, 0, ran.output);
  const rows = ran.stdout.split('\n').filter((line) => line.startsWith('LOCK_'));
  t.is(rows.length, 2, ran.stdout);
  const row = rows.find((line) => line.startsWith(held.key))!;
  // The TTL as the CLI read it: the 60 s lease less the CLI's own start (over a second on a loaded machine).
  t.regex(row, /\b([3-5]\d|60)\.\d s\s+0\s+\d+$/, 'TTL, no waiters, the fence');
  t.true(row.endsWith(String(held.fence)));
  t.regex(ran.stdout, /2 locks on 127\.0\.0\.1:\d+/);
  t.false(/lockweave:fence|\{lockweave\}/.test(ran.stdout), 'own keys are not listed');
  await held.release();
  await keyless.release();
});

test('locks never prints the password of the URL, and a server that cannot be reached exits 1', async (t) => {
  const ran = await runChild(process.execPath, [CLI, 'locks', '--redis', 'redis://:s3cret-pw@127.0.0.1:1'], {
    cwd: ROOT,
  });
  t.is(ran.status, 1, ran.output);
  t.regex(ran.stderr, /^lockweave: 127\.0\.0\.1:1: /);
  t.false(ran.output.includes('s3cret-pw'));
});

test('unlock refuses without --force; with it the key goes and a waiter in another process takes it at once', async (t) => {
  const businessFlag = uniqueId('stuck');
  // A holder that is gone: a key with a long lease and no watchdog, never released.
  const stuck = await lock({ businessFlag, key: 'A', lockTime: 120_000, watchdog: false });
  const waiter = spawn(process.execPath, [join(__dirname, 'programs', 'wait-for-notice.js'), businessFlag, 'A'], {
    env: { ...process.env, REDIS_URL: fixture.server.url },
  });
  let output = '';
  waiter.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => waiter.on('exit', resolve));
  await until(async () => (await fixture.redis.zcard(`{${stuck.key}}:lockweave:line`)) === 1, {
    what: 'the other process in line',
    timeoutMs: 20_000,
  });
  const refused = await lockweave(['unlock', stuck.key]);
  t.is(refused.status, 1, refused.output);
  t.regex(refused.stdout, /is held \(\d+\.\d s left, 1 waiter\); not removed: pass --force/);
  t.truthy(await fixture.redis.get(stuck.key), 'still there');
  const removed = await lockweave(['unlock', stuck.key, '--force']);
  t.is(removed.status, 0, removed.output);
  t.regex(removed.stdout, /^removed LOCK_/);
  t.is(await exited, 0, output);
  // Its next scheduled attempt was 100 s away: it came on the notice.
  const got = /got after (\d+) ms/.exec(output);
  t.truthy(got, output);
  t.true(Number(got![1]) < 60_000, output);
  await stuck.release(); // finds the key not its own: nothing changes
  const own = await lockweave(['unlock', `{${stuck.key}}:lockweave:line`, '--force']);
  t.is(own.status, 1, "lockweave's own keys are not locks");
});

test('without --redis and REDIS_URL, locks refuses when the environment names another Redis, as the runtime does, and prints no value', (t) => {
  const env: Record<string, string> = { REDIS_HOST: '10.0.0.9', REDIS_PASSWORD: 'env-s3cret' };
  for (const [name, value] of Object.entries(process.env))
    if (name !== 'REDIS_URL' && name !== 'NODE_OPTIONS' && value !== undefined) env[name] ??= value;
  const ran = spawnSync(process.execPath, [CLI, 'locks'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  const output = `${ran.stdout}${ran.stderr}`;
  t.is(ran.status, 1, output);
  t.regex(ran.stderr, /REDIS_HOST, REDIS_PASSWORD/);
  t.regex(ran.stderr, /pass --redis <url> or set REDIS_URL/);
  t.false(output.includes('env-s3cret') || output.includes('10.0.0.9'), output);
});
