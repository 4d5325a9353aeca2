// Hand-over: a release gives the key to the first waiter in line; when that waiter is in the
// releasing process, straight to it with its full lease, and the key is never free in between.
import test, { type ExecutionContext } from 'ava';
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { configure, defineLock, type Lease, type LockEvent } from 'lockweave';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { heardAt } from '../helpers/release-channels';
import { sleep, until } from '../helpers/time';
import { waitingLineOf } from '../../runtime/store/waiting-line';

const fixture = useRedis(test);

const flag = (label: string) => uniqueId(label);

// Every lock event of this file's tests. Only a waiter asleep in this process is named successor
// (lock/succession.ts), and its place stands in the Redis line before its attempt's reply is back:
// a test of take-over or hand-over waits for the waiter's 'waiting' event, logged as it goes to sleep.
const seen: LockEvent[] = [];
test.before(() => configure({ logger: (event) => void seen.push(event) })); // names only a logger: the connection stays
/** Until `count` waiters of `key` have gone to sleep, counted over the whole file's run. */
const asleep = (key: string, count = 1) =>
  until(() => seen.filter((event) => event.type === 'waiting' && event.key === key).length >= count, {
    what: `${count} waiter(s) of ${key} asleep`,
  });

/** The commands clients send that name `key`, as MONITOR reports them, from now until the test ends. */
async function commandsNaming(key: string, t: ExecutionContext): Promise<string[]> {
  const socket = connect(fixture.server.port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  const commands: string[] = [];
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\r\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.includes(`"${key}"`) && !line.includes(' lua] ')) commands.push(line);
  });
  socket.write('MONITOR\r\n');
  await until(() => socket.bytesRead > 0, { what: 'MONITOR on' }); // its +OK
  return commands;
}

test('a holder done with the key gives its grant to a waiter in this process: no release, no notice, the key never free', async (t) => {
  const businessFlag = flag('takeover');
  const L = defineLock({ businessFlag, retries: 1, waitTime: 60_000, lockTime: 30_000 });
  const W = defineLock({ businessFlag, retries: 1, waitTime: 60_000, lockTime: 40_000 });
  const holder = (await L.acquire('A')) as Lease;
  // Listen on the key's release channels as another process would, and as this one does.
  const channels = [`lockweave:released:${holder.key}`, heardAt(holder.key, holder.token)];
  const listener = new Redis(fixture.server.url);
  t.teardown(() => listener.disconnect()); // also when an assertion throws: a client left reconnecting would keep the worker up
  const notices: string[] = [];
  listener.on('message', (_channel: string, message: string) => notices.push(message));
  await listener.subscribe(...channels);

  const waiter = W.acquire('A') as Promise<Lease>;
  const { line } = waitingLineOf(holder.key);
  await asleep(holder.key); // the waiter stands in line, asleep
  await holder.release();
  const next = await waiter;
  t.is(next.token, holder.token, 'the waiter holds the grant the holder had');
  t.is(await fixture.redis.get(holder.key), holder.token, 'the key was never free');
  // Its watchdog's first renewal comes when two thirds of its own lease are left (the holder's 30 s
  // known, 40 s asked: at about 3 s): the take-over script, which renews the key for the waiter's
  // lease and takes it out of the line.
  await until(async () => (await fixture.redis.pttl(holder.key)) > 30_000, 20_000);
  t.is(await fixture.redis.zcard(line), 0);
  t.deepEqual(
    seen
      .filter((event) => event.key === holder.key)
      .map((event) => [event.type, 'token' in event ? event.token : undefined]),
    [
      ['acquired', holder.token],
      ['waiting', undefined],
      ['released', holder.token],
      ['acquired', holder.token],
      ['renewed', holder.token],
    ],
  );
  await next.release();
  t.is(await fixture.redis.get(holder.key), null);
  // Notices on one channel arrive in the order they were published: a marker published now comes
  // after any notice the take-over or the release published.
  for (const channel of channels) await fixture.redis.publish(channel, 'marker');
  await until(async () => notices.length > 1);
  t.deepEqual(
    notices,
    ['marker', 'marker'],
    'nothing was announced: not the take-over, nor the final release, which found nobody in line',
  );
});

test('a take-over sends nothing: a section that ends before its first renewal costs only the release, which takes its waiter out of the line', async (t) => {
  const L = defineLock({ businessFlag: flag('takeover-silent'), retries: 1, waitTime: 60_000 });
  const holder = (await L.acquire('A')) as Lease;
  const waiter = L.acquire('A') as Promise<Lease>;
  const { line } = waitingLineOf(holder.key);
  await asleep(holder.key);
  // Every command sent to Redis that names the key (MONITOR on a socket of its own; the commands a
  // script makes are left out).
  const commands = await commandsNaming(holder.key, t);
  await holder.release();
  const next = await waiter;
  t.is(next.token, holder.token);
  t.is(await fixture.redis.zcard(line), 1, "the waiter's place stays in line while it holds the grant");
  await next.release();
  t.is(await fixture.redis.get(holder.key), null);
  t.is(await fixture.redis.zcard(line), 0, 'the release took it out');
  // A script goes as EVALSHA first (then EVAL, should another test here have flushed the scripts).
  const scripts = () => commands.filter((command) => /^\S+ \[[^\]]*\] "evalsha"/i.test(command));
  await until(() => scripts().length > 0);
  t.is(scripts().length, 1, `one script for both sections, the final release; Redis saw ${commands.join(' | ')}`);
});

test('a grant is taken over at most 8 times while its takers stand in line, even when the cohort starts again', async (t) => {
  // One waiter at a time: each take-over leaves this process without waiters, so the cohort count
  // starts again at every succession; the takers' places stay in line until a release takes them out.
  const L = defineLock({ businessFlag: flag('takeover-chain'), retries: 1, waitTime: 60_000 });
  let holder = (await L.acquire('A')) as Lease;
  const { key, token } = holder;
  const { line } = waitingLineOf(key);
  const tokens: string[] = [];
  for (let i = 0; i < 9; i++) {
    const waiter = L.acquire('A') as Promise<Lease>;
    await asleep(key, i + 1);
    await holder.release();
    holder = await waiter;
    tokens.push(holder.token);
  }
  t.deepEqual(tokens.slice(0, 8), Array(8).fill(token), 'eight take-overs of the one grant');
  t.not(tokens[8], token, 'the ninth is a hand-over: the release took the eight out of the line');
  t.is(await fixture.redis.zcard(line), 0);
  await holder.release();
  t.is(await fixture.redis.get(key), null);
});

test("a caller that comes while its process's turn runs takes no place in the line: a take-over in the turn serves it", async (t) => {
  const L = defineLock({ businessFlag: flag('turn-no-place'), retries: 1, waitTime: 60_000 });
  const holder = (await L.acquire('A')) as Lease;
  const { key } = holder;
  const { line } = waitingLineOf(key);
  const first = L.acquire('A') as Promise<Lease>;
  await asleep(key, 1);
  const second = L.acquire('A') as Promise<Lease>;
  await asleep(key, 2);
  await holder.release(); // a take-over: this process's turn runs
  const firstLease = await first;
  t.is(firstLease.token, holder.token);
  const commands = await commandsNaming(key, t);
  const third = L.acquire('A') as Promise<Lease>;
  await asleep(key, 3);
  t.is(await fixture.redis.zcard(line), 2, 'the first two stand in line; the third took no place');
  await firstLease.release();
  const secondLease = await second;
  await secondLease.release();
  const thirdLease = await third;
  t.is(thirdLease.token, holder.token, 'the third took the grant over too');
  await thirdLease.release();
  t.is(await fixture.redis.get(key), null);
  t.is(await fixture.redis.zcard(line), 0);
  const scripts = () => commands.filter((command) => /^\S+ \[[^\]]*\] "eval(sha)?"/i.test(command));
  await until(() => scripts().length > 0);
  t.is(
    scripts().length,
    1,
    `the third section sent nothing of its own, only the final release; Redis saw ${commands.join(' | ')}`,
  );
});

test("a caller that took no place takes one when its process's turn ends, and gets the key in turn", async (t) => {
  // The turn ends when its holder keeps the key to lapse (autoUnlock=false): nobody here hands it on.
  const businessFlag = flag('turn-ends');
  const L = defineLock({ businessFlag, retries: 40, waitTime: 250, lockTime: 30_000 });
  const K = defineLock({ businessFlag, retries: 1, waitTime: 60_000, lockTime: 1_500, autoUnlock: false });
  const holder = (await L.acquire('A')) as Lease;
  const { key } = holder;
  const { line } = waitingLineOf(key);
  const kept = K.acquire('A') as Promise<Lease>;
  await asleep(key, 1);
  const second = L.acquire('A') as Promise<Lease>;
  await asleep(key, 2);
  await holder.release();
  const keptLease = await kept;
  // A hand-over, not a take-over: it asks a shorter lease than the grant's (lock/succession.ts).
  t.not(keptLease.token, holder.token, 'the keeping waiter got the key from the release, ahead of the line');
  const third = L.acquire('A') as Promise<Lease>;
  await asleep(key, 3);
  t.is(await fixture.redis.zcard(line), 1, 'the second stands in line; the third took no place');
  await keptLease.release(); // kept: the turn ends, and the third takes its place
  await until(async () => (await fixture.redis.zcard(line)) === 2, { what: 'the second and the third in line' });
  // The key lapses (1.5 s); the second, first in line, gets it at its next attempt, then the third.
  const secondLease = await second;
  await secondLease.release();
  const thirdLease = await third;
  t.truthy(thirdLease.token);
  await thirdLease.release();
  t.is(await fixture.redis.get(key), null);
  t.is(await fixture.redis.zcard(line), 0);
});

test("a waiter that keeps its key after its body (autoUnlock=false) gets a grant of its own, not the holder's rest", async (t) => {
  const businessFlag = flag('takeover-kept');
  const L = defineLock({ businessFlag, retries: 1, waitTime: 60_000 });
  const W = defineLock({ businessFlag, retries: 1, waitTime: 60_000, autoUnlock: false });
  const holder = (await L.acquire('A')) as Lease;
  const waiter = W.acquire('A') as Promise<Lease>;
  const { line } = waitingLineOf(holder.key);
  await asleep(holder.key);
  await holder.release();
  const next = await waiter;
  // A taken-over grant would lapse when the holder's would have: sooner than the waiter's lockTime.
  t.not(next.token, holder.token, 'a grant of its own');
  await next.release();
  t.is(await fixture.redis.get(holder.key), next.token, 'kept: the key lapses by itself');
  t.true((await fixture.redis.pttl(holder.key)) > 25_000, "for the waiter's own lockTime");
  t.is(await fixture.redis.zcard(line), 0, 'no place left to stand at the head of the line');
  await fixture.redis.del(holder.key);
});

test('a taken-over grant that turns out lost is reported lost at its first renewal: its signal aborts', async (t) => {
  // A short lease: the waiter's first renewal comes once two thirds of it are left, within half a second.
  const L = defineLock({ businessFlag: flag('takeover-lost'), retries: 1, waitTime: 60_000, lockTime: 1_500 });
  const holder = (await L.acquire('A')) as Lease;
  const waiter = L.acquire('A') as Promise<Lease>;
  await asleep(holder.key);
  // The key is gone behind the holder's back (a failover that lost it, say): the holder cannot tell.
  await fixture.redis.set(holder.key, 'someone-else');
  await holder.release();
  const next = await waiter;
  await until(async () => next.signal.aborted);
  t.regex(String((next.signal.reason as Error).message), /lost the lock .*: the watchdog found the key no longer ours/);
  await next.release();
  t.is(await fixture.redis.get(holder.key), 'someone-else', 'the release did not touch what is not ours');
});

test('a taken-over grant released at once, on a server that forgot its scripts, still frees the key', async (t) => {
  const L = defineLock({ businessFlag: flag('takeover-noscript'), retries: 1, waitTime: 60_000 });
  const holder = (await L.acquire('A')) as Lease;
  const waiter = L.acquire('A') as Promise<Lease>;
  const { line } = waitingLineOf(holder.key);
  await asleep(holder.key);
  // A server that forgot its scripts: the release that ends the taken-over grant is sent again after
  // NOSCRIPT (while the release script is loaded again by a lock on another key), and must still take
  // the waiter out of the line, or it would pass the key to the waiter's old place.
  await fixture.redis.script('FLUSH');
  await (await L.acquire('B'))!.release();
  await holder.release();
  await (await waiter).release();
  t.is(await fixture.redis.get(holder.key), null);
  t.is(await fixture.redis.zcard(line), 0);
});

for (const [why, holderOptions, waiterOptions] of [
  ['the waiter has no watchdog to renew the grant', {}, { watchdog: false, lockTime: 5_000 }],
  ["the holder's grant has less than half the waiter's lease left", { watchdog: false, lockTime: 1_000 }, {}],
  // A take-over sends nothing: the key would outlast a dead waiter by more than its own lease.
  ["the holder's grant may last longer than the waiter's lease", { lockTime: 30_000 }, { lockTime: 5_000 }],
] as const) {
  test(`a release hands the key to a waiter in this process under its own token when ${why}`, async (t) => {
    const businessFlag = flag('succession');
    const L = defineLock({ businessFlag, retries: 1, waitTime: 60_000, ...holderOptions });
    const W = defineLock({ businessFlag, retries: 1, waitTime: 60_000, ...waiterOptions });
    const holder = (await L.acquire('A')) as Lease;
    const waiter = W.acquire('A') as Promise<Lease>;
    await asleep(holder.key);
    await holder.release();
    const tokenRightAfterRelease = await fixture.redis.get(holder.key);
    const next = await waiter;
    t.is(tokenRightAfterRelease, next.token, 'the key went straight from holder to waiter');
    t.not(next.token, holder.token);
    await next.release();
  });
}

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
          await lease.run(() => sleep(1));
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
