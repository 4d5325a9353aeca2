// Hand-over: a release gives the key to the first waiter in line; when that waiter is in the
// releasing process, straight to it with its full lease, and the key is never free in between.
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { defineLock, type Lease } from 'lockweave';
import { delay, uniqueId, until, useRedis } from '../helpers/redis-fixture';
import { waitingLineOf } from '../../runtime/store/waiting-line';

const fixture = useRedis(test);

const flag = (label: string) => uniqueId(label).replace(/-/g, '_');

test('a release hands the key to a waiter in this process: the key is never free in between', async (t) => {
  const L = defineLock({ businessFlag: flag('handoff'), retries: 1, waitTime: 60_000 });
  const holder = (await L.acquire('A')) as Lease;
  // Listen on the key's release channel as another process would.
  const listener = new Redis(fixture.server.url);
  const notices: string[] = [];
  listener.on('message', (channel) => notices.push(channel));
  await listener.subscribe(`lockweave:released:${holder.key}`);

  const waiter = L.acquire('A') as Promise<Lease>;
  await until(async () => (await fixture.redis.zcard(waitingLineOf(holder.key).line)) === 1); // the waiter stands in line
  await holder.release();
  const tokenRightAfterRelease = await fixture.redis.get(holder.key);
  const next = await waiter;
  t.is(tokenRightAfterRelease, next.token, 'the key went straight from holder to waiter');
  t.not(next.token, holder.token);
  await next.release();
  // Notices on one channel arrive in order: had the hand-over published one, it would come first.
  await until(async () => notices.length > 0);
  t.deepEqual(notices, [`lockweave:released:${holder.key}`], 'only the final, real release was announced');
  listener.disconnect();
});

test('waiters in another process still get their turn while this process keeps handing the key on', async (t) => {
  const businessFlag = flag('fair');
  const L = defineLock({ businessFlag, retries: 1_000, waitTime: 100 });
  const program = join(__dirname, 'programs', 'wait-once.js');
  const foreign = spawn(process.execPath, [program, businessFlag, 'K'], {
    env: { ...process.env, REDIS_URL: fixture.server.url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let foreignGotIt = false;
  const foreignDone = new Promise<void>((resolve, reject) => {
    foreign.stdout!.on('data', (data) => {
      if (String(data).includes('got')) foreignGotIt = true;
    });
    foreign.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`foreign process exited ${code}`))));
  });
  // Four local callers keep the key busy, so there is always a local waiter to hand it to.
  // Bounded in count and time; they stop as soon as the other process has had the key.
  const deadline = Date.now() + 30_000;
  let sections = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (!foreignGotIt && sections < 20_000 && Date.now() < deadline) {
        const lease = (await L.acquire('K')) as Lease;
        try {
          await lease.run(() => delay(1));
          sections++;
        } finally {
          await lease.release();
        }
      }
    }),
  );
  // Checked before the local callers' loops are let go: the other process must have had the key
  // while this one was still contending, not after it gave up.
  const gotItWhileContended = foreignGotIt;
  await foreignDone;
  t.true(gotItWhileContended, `the other process never got the key in ${sections} local sections`);
});

test('release still works after Redis forgets its scripts (NOSCRIPT falls back to EVAL)', async (t) => {
  const L = defineLock({ businessFlag: flag('noscript') });
  const first = (await L.acquire('A')) as Lease;
  await first.release();
  await fixture.redis.script('FLUSH');
  const second = (await L.acquire('A')) as Lease;
  await second.release();
  t.is(await fixture.redis.get(second.key), null);
});
