// Fencing tokens on Redis: every grant of a key gets a number larger than the grant before it, by
// every path a grant takes, and a lock without fencing pays nothing for it.
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { currentLock, defineLock, type Lease } from 'lockweave';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { sleep, until } from '../helpers/time';
import { fenceCounterOf, waitingLineOf } from '../../runtime/store/waiting-line';

const fixture = useRedis(test);

const flag = (label: string) => uniqueId(label);

/** The server's clock in microseconds. */
async function serverMicros(): Promise<number> {
  const [seconds, micros] = await fixture.redis.time();
  return Number(seconds) * 1_000_000 + Number(micros);
}

/** How often the server ran each command since CONFIG RESETSTAT (commands run by scripts included). */
async function commandCounts(): Promise<Record<string, number>> {
  const info = await fixture.redis.info('commandstats');
  return Object.fromEntries(
    [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, name, calls]) => [name, Number(calls)]),
  );
}

// Serial (run before the others): it counts the server's commands.
test.serial(
  'the first attempt with fencing returns a number; without it, still one plain SET NX PX and no counter',
  async (t) => {
    const plain = defineLock({ businessFlag: flag('plain') });
    await fixture.redis.config('RESETSTAT');
    const lease = (await plain.acquire('k')) as Lease;
    const counts = await commandCounts();
    t.is(counts.set, 1, 'the unfenced first attempt is one SET');
    t.is((counts.evalsha ?? 0) + (counts.eval ?? 0) + (counts.incr ?? 0), 0, 'and nothing else');
    t.is(lease.fence, undefined);
    await lease.release();
    t.is(await fixture.redis.exists(fenceCounterOf(lease.key)), 0, 'no counter without fencing');
    const fenced = defineLock({ businessFlag: flag('fenced'), fencing: true });
    const before = await serverMicros();
    const first = (await fenced.acquire('k')) as Lease;
    t.true(first.fence! >= before, 'never below the server clock in µs');
    await first.release();
    const second = (await fenced.acquire('k')) as Lease;
    t.true(second.fence! > first.fence!);
    await second.release();
  },
);

test('the counter sits beside the key in its slot, with no TTL, and never goes back below its last number', async (t) => {
  const L = defineLock({ businessFlag: flag('counter'), fencing: true });
  const lease = (await L.acquire('k')) as Lease;
  await lease.release();
  const counter = fenceCounterOf(lease.key);
  t.is(counter, `{${lease.key}}:lockweave:fence`);
  t.is(await fixture.redis.pttl(counter), -1, 'no TTL: an expired counter could start below a number given out');
  t.is(Number(await fixture.redis.get(counter)), lease.fence!);
  // A counter ahead of the clock (many grants in one µs, or a clock set back) goes on from itself.
  const ahead = (await serverMicros()) + 60_000_000;
  await fixture.redis.set(counter, String(ahead));
  const next = (await L.acquire('k')) as Lease;
  t.is(next.fence, ahead + 1);
  await next.release();
  // A counter behind the clock (a replica that missed grants) jumps to the clock.
  await fixture.redis.set(counter, '5');
  const before = await serverMicros();
  const after = (await L.acquire('k')) as Lease;
  t.true(after.fence! >= before);
  await after.release();
});

test('a waiter that takes the key in turn, after waiting, gets a larger number', async (t) => {
  const L = defineLock({ businessFlag: flag('inturn'), fencing: true, retries: 20, waitTime: 100 });
  const first = (await L.acquire('k')) as Lease;
  await first.release();
  // Held by a foreign token until its lease ends: no release, so the waiter's own attempt takes it.
  await fixture.redis.set(first.key, 'foreign', 'PX', 300);
  const next = (await L.acquire('k')) as Lease;
  t.true(next.fence! > first.fence!);
  t.is(await fixture.redis.get(first.key), next.token);
  await next.release();
});

test('a release hands the key to a waiter of this process with a larger number, the key never free in between', async (t) => {
  const L = defineLock({ businessFlag: flag('handed'), fencing: true, retries: 1, waitTime: 60_000 });
  const holder = (await L.acquire('k')) as Lease;
  const waiter = L.acquire('k') as Promise<Lease>;
  await until(async () => (await fixture.redis.zcard(waitingLineOf(holder.key).line)) === 1);
  await holder.release();
  const tokenRightAfterRelease = await fixture.redis.get(holder.key);
  const next = await waiter;
  t.is(tokenRightAfterRelease, next.token, 'handed over by the release script itself');
  t.true(next.fence! > holder.fence!, `${next.fence} > ${holder.fence}`);
  t.is(Number(await fixture.redis.get(fenceCounterOf(holder.key))), next.fence!);
  await next.release();
});

test('a key passed from another process is confirmed with a larger number', async (t) => {
  const businessFlag = flag('passed');
  const child = spawn(process.execPath, [join(__dirname, 'programs', 'fenced-hold.js'), businessFlag, 'k'], {
    env: { ...process.env, REDIS_URL: fixture.server.url },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (data) => (output += data));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await until(async () => /fence \d+/.test(output), 20_000);
    const foreignFence = Number(/fence (\d+)/.exec(output)![1]);
    const L = defineLock({ businessFlag, fencing: true, retries: 1, waitTime: 30_000 });
    const waiting = L.acquire('k') as Promise<Lease>;
    await until(async () => (await fixture.redis.zcard(waitingLineOf(L.keyFor('k')).line)) === 1);
    child.stdin!.write('release\n');
    const lease = await waiting;
    t.true(lease.fence! > foreignFence, `${lease.fence} > ${foreignFence}`);
    await lease.release();
    t.is(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL'); // our own child, by its handle
  }
});

test('a reentrant call keeps the outer grant and its number; currentLock() sees the fence', async (t) => {
  const L = defineLock({ businessFlag: flag('reenter'), fencing: true });
  await L.run('k', async () => {
    const outer = currentLock();
    t.is(typeof outer.fence, 'number');
    await L.run('k', async () => t.is(currentLock().fence, outer.fence));
  });
});

test('numbers strictly increase over many grants by mixed paths, callers contending', async (t) => {
  const L = defineLock({ businessFlag: flag('many'), fencing: true, retries: 100, waitTime: 200 });
  const fences: number[] = [];
  const deadline = Date.now() + 30_000;
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let i = 0; i < 15 && Date.now() < deadline; i++) {
        await L.run('k', async () => {
          fences.push(currentLock().fence!);
          await sleep(1);
        });
      }
    }),
  );
  t.true(fences.length >= 30, `${fences.length} sections`);
  // Bodies run one at a time, so the order they record is the order of the grants.
  t.true(
    fences.every((fence, i) => i === 0 || fence > fences[i - 1]),
    'every grant larger than the one before',
  );
});
