// The line of waiters in Redis: who is passed the key, what happens to waiters that die or give
// up, and that the line stays in the lock key's Cluster slot.
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Redis } from 'ioredis';
import { defineLock, LockAcquireError, RedisLockStore, type Lease, type PlaceInLine } from 'lockweave';
import { claimMarkOf, fenceCounterOf, waitingLineOf } from '../../runtime/store/waiting-line';
import { Waiter } from '../../runtime/lock/waiters';
import { BINDING, BINDS_WITHIN_MS, CLAIM_MS } from '../../runtime/store/lock-store';
import { ACQUIRE_IN_TURN } from '../../runtime/store/scripts/acquire-in-turn';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { heardAt, heardChannels } from '../helpers/release-channels';
import { monitorRedis } from '../helpers/redis-monitor';
import { sleep, until } from '../helpers/time';

const fixture = useRedis(test);
const flag = (label: string) => uniqueId(label);

const place = (token: string, placeLastsMs: number): PlaceInLine => ({
  token,
  leaseMs: 10_000,
  placeLastsMs,
  place: undefined,
});

test('a release passes the key to the first waiter in line, over waiters that came later', async (t) => {
  const store = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  const key = `LOCK_${flag('order')}`;
  t.true(await store.tryAcquire(key, 'holder', 10_000));
  for (const token of ['first', 'second', 'third']) t.false(await store.tryAcquireInTurn(key, place(token, 10_000)));
  t.is(await store.release(key, 'holder'), 'passed');
  t.is(await fixture.redis.get(key), 'first');
  t.is(
    await store.release(key, 'first', { successor: place('second', 10_000) }),
    'handed',
    'the named successor, first in line, gets it with its lease',
  );
  t.is(await fixture.redis.get(key), 'second');
  t.true((await fixture.redis.pttl(key)) > CLAIM_MS, 'a full lease, not a claim');
  t.is(await store.release(key, 'second'), 'passed');
  t.is(await store.release(key, 'third'), 'freed');
  t.is(
    await fixture.redis.exists(key, waitingLineOf(key).line, waitingLineOf(key).lapses),
    0,
    'nothing is left behind',
  );
  await store.close();
});

test('a release that finds the line empty publishes nothing, unless it asks to (Redlock: then it says how many heard); a pass names its waiter', async (t) => {
  const store = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  const key = `LOCK_${flag('quiet')}`;
  const channel = `lockweave:released:${key}`;
  const listener = new Redis(fixture.server.url);
  const heard: string[] = [];
  listener.on('message', (_channel: string, message: string) => heard.push(message));
  await listener.subscribe(channel);
  // Messages on one channel arrive in the order Redis published them: a marker published after a
  // release comes after any notice that release published.
  const heardUpTo = async (marker: string) => {
    await fixture.redis.publish(channel, marker);
    await until(() => heard.includes(marker), { timeoutMs: 10_000, what: `the marker ${marker}` });
  };
  t.true(await store.tryAcquire(key, 'alone', 10_000));
  t.is(await store.release(key, 'alone'), 'freed');
  await heardUpTo('marker-1');
  t.deepEqual(heard, ['marker-1'], 'nobody in line: nothing published');
  t.true(await store.tryAcquire(key, 'redlock-node', 10_000));
  const heardBy: number[] = [];
  const announced = { announceFree: true, onAnnounced: (count: number) => heardBy.push(count) };
  t.is(await store.release(key, 'redlock-node', announced), 'freed');
  await heardUpTo('marker-2');
  t.deepEqual(heard, ['marker-1', '', 'marker-2'], 'asked: an empty notice');
  t.deepEqual(heardBy, [1], 'heard by the one subscriber there is');
  t.true(await store.tryAcquire(key, 'holder', 10_000));
  t.false(await store.tryAcquireInTurn(key, place('waiter', 10_000)));
  t.is(await store.release(key, 'holder'), 'passed');
  await heardUpTo('marker-3');
  t.deepEqual(heard, ['marker-1', '', 'marker-2', 'waiter', 'marker-3'], 'a pass is announced to its waiter');
  listener.disconnect();
  await store.close();
});

test('a place that lapses (its waiter died) is passed over; a waiter that comes back keeps its place', async (t) => {
  const store = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  const key = `LOCK_${flag('lapse')}`;
  await store.tryAcquire(key, 'holder', 10_000);
  const slow = place('slow', 300);
  await store.tryAcquireInTurn(key, place('dead', 300));
  await store.tryAcquireInTurn(key, slow);
  await store.tryAcquireInTurn(key, place('live', 10_000));
  // Both short places lapse: the server's clock, which the line's lapse times are read against, passes them.
  const { lapses } = waitingLineOf(key);
  const lapseAt = Math.max(
    ...(await Promise.all(['dead', 'slow'].map((token) => fixture.redis.zscore(lapses, token)))).map(Number),
  );
  const serverMs = async () => {
    const [seconds, micros] = await fixture.redis.time();
    return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
  };
  await until(async () => (await serverMs()) > lapseAt, { what: 'the short places lapsing', everyMs: 20 });
  t.false(await store.tryAcquireInTurn(key, slow), 'the slow waiter comes back: its old place, ahead of live');
  t.is(await store.release(key, 'holder'), 'passed');
  t.is(await fixture.redis.get(key), 'slow', 'the dead waiter was passed over, the slow one kept its place');
  await store.release(key, 'slow');
  t.is(await fixture.redis.get(key), 'live');
  await store.release(key, 'live');
  await store.close();
});

test('a caller that gives up leaves the line', async (t) => {
  const L = defineLock({ businessFlag: flag('leave'), retries: 2, waitTime: 100 });
  const holder = (await L.acquire('A')) as Lease;
  await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
  // Sooner than its place would lapse by itself (waitTime + 2 s after its last attempt).
  await until(async () => (await fixture.redis.zcard(waitingLineOf(holder.key).line)) === 0, 1_000);
  t.pass();
  await holder.release();
});

test('a waiter whose process dies while first in line holds the key up for its claim only', async (t) => {
  const businessFlag = flag('dead');
  const L = defineLock({ businessFlag, retries: 200, waitTime: 100 });
  const holder = (await L.acquire('K')) as Lease;
  const line = waitingLineOf(holder.key).line;
  // A waiter in another process takes the first place in line, and is killed there.
  const foreign = spawn(process.execPath, [join(__dirname, 'programs', 'wait-once.js'), businessFlag, 'K'], {
    env: { ...process.env, REDIS_URL: fixture.server.url },
    stdio: 'ignore',
  });
  try {
    await until(async () => (await fixture.redis.zcard(line)) === 1, 20_000);
  } finally {
    foreign.kill('SIGKILL');
  }
  const next = L.acquire('K') as Promise<Lease>;
  await until(async () => (await fixture.redis.zcard(line)) === 2, 5_000);
  // Redis has seen the dead process's connections close: its channel has no subscriber, so the
  // pass to its waiter does not bind (it would keep the key the dead waiter's lease).
  const [dead] = await fixture.redis.zrange(line, 0, 0);
  await until(
    async () => !(await heardChannels(fixture.redis, holder.key)).includes(heardAt(holder.key, dead!)),
    5_000,
  );
  const releasedAt = Date.now();
  await holder.release();
  const lease = await next;
  const waitedMs = Date.now() - releasedAt;
  // The dead waiter's place lasts 2.1 s past its last attempt: if it is still there, the key goes
  // to it with a claim of CLAIM_MS, and then to us at our next attempt after the claim ends.
  t.true(waitedMs <= CLAIM_MS + 3_000, `got the key ${waitedMs} ms after the release`);
  t.is(await fixture.redis.get(lease.key), lease.token);
  await lease.release();
});

// Tokens as processes make them (runtime/store/process-tag.ts): the first group the process's tag, version 8.
const tokenOf = (tag: string, n: number) => `${tag}-0000-8000-8000-${String(n).padStart(12, '0')}`;
/** A binding pass's notice and mark for that token (lock-store.ts, BINDS_WITHIN_MS). */
const binding = (tag: string, n: number) => BINDING + tokenOf(tag, n);

test("a pass is told to its waiter's process and to the next in line's, who watches the claim: not to every process", async (t) => {
  const store = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  const key = `LOCK_${flag('heard')}`;
  const [a, b, c, d] = ['aaaaaaaa', 'bbbbbbbb', 'cccccccc', 'dddddddd'];
  const older = '3f2a1c9e-5b7d-4e11-9a3c-2d4e6f8a0b1c'; // an older lockweave's token: a v4 UUID
  const channels = [`lockweave:released:${key}`, ...[a, b, c, d].map((tag) => heardAt(key, tag))];
  const listener = new Redis(fixture.server.url);
  t.teardown(() => listener.disconnect());
  const heard = new Map<string, string[]>(channels.map((channel) => [channel, []]));
  listener.on('message', (channel: string, message: string) => heard.get(channel)?.push(message));
  await listener.subscribe(...channels);
  // Messages on one channel arrive in the order Redis published them: a marker on each, published
  // after a release, comes after any notice that release published.
  let markers = 0;
  const heardSince = async () => {
    const marker = `marker-${++markers}`;
    for (const channel of channels) await fixture.redis.publish(channel, marker);
    await until(() => channels.every((channel) => heard.get(channel)!.includes(marker)), {
      timeoutMs: 10_000,
      what: marker,
    });
    const got = Object.fromEntries(
      channels.map((channel, i) => [
        i === 0 ? 'key' : channel.slice(-9, -1),
        heard.get(channel)!.filter((m) => m !== marker),
      ]),
    );
    for (const list of heard.values()) list.length = 0;
    return got;
  };
  const none: string[] = [];
  t.true(await store.tryAcquire(key, 'holder', 10_000));
  // In line: a's waiter, b's two, c's, d's.
  const placedAt = Date.now();
  for (const token of [tokenOf(a, 1), tokenOf(b, 1), tokenOf(b, 2), tokenOf(c, 1), tokenOf(d, 1)])
    t.false(await store.tryAcquireInTurn(key, place(token, 10_000)));
  t.is(await store.release(key, 'holder'), 'passed');
  // Within BINDS_WITHIN_MS of a's place by this clock, so by Redis's too: the pass binds. On a machine
  // so loaded that the places and the release took longer, it may be a claim, told as below.
  const surelyBinds = Date.now() - placedAt < BINDS_WITHIN_MS;
  const bound = { key: none, aaaaaaaa: [binding(a, 1)], bbbbbbbb: none, cccccccc: none, dddddddd: none };
  const told = await heardSince();
  if (surelyBinds || isDeepStrictEqual(told, bound))
    t.deepEqual(told, bound, 'binding (its waiter came a moment ago, and its process hears): to its process alone');
  else
    t.deepEqual(
      told,
      { key: none, aaaaaaaa: [tokenOf(a, 1)], bbbbbbbb: [tokenOf(a, 1)], cccccccc: none, dddddddd: none },
      `placed ${Date.now() - placedAt} ms before (a loaded machine): a claim, told to its waiter and the next in line`,
    );
  t.true(await store.tryAcquireInTurn(key, place(tokenOf(a, 1), 10_000)), 'a makes it its own');
  // From here the waiters have stood in line past BINDS_WITHIN_MS: their passes do not bind, and
  // go to the waiter and to the next in line, who watches the claim.
  await sleep(BINDS_WITHIN_MS + 100);
  t.is(await store.release(key, tokenOf(a, 1)), 'passed');
  t.deepEqual(
    await heardSince(),
    { key: none, aaaaaaaa: none, bbbbbbbb: [tokenOf(b, 1)], cccccccc: none, dddddddd: none },
    'the waiter and the next in line in one process: told once',
  );
  // The first in line gives up while the claim ahead of it is unconfirmed: the next watches.
  t.is(await store.leave(key, tokenOf(b, 2)), 'not-ours');
  t.deepEqual(
    await heardSince(),
    { key: none, aaaaaaaa: none, bbbbbbbb: none, cccccccc: [tokenOf(b, 1)], dddddddd: none },
    'a watcher that gives up hands the watch on',
  );
  t.true(await store.tryAcquireInTurn(key, place(tokenOf(b, 1), 10_000)));
  t.false(await store.tryAcquireInTurn(key, place(older, 10_000)), 'an older lockweave waits at the back');
  t.is(await store.release(key, tokenOf(b, 1)), 'passed');
  t.is(await store.tryAcquireInTurn(key, place(tokenOf(c, 1), 10_000)), true);
  t.is(await store.release(key, tokenOf(c, 1)), 'passed');
  t.deepEqual(
    await heardSince(),
    {
      key: [tokenOf(d, 1)],
      aaaaaaaa: none,
      bbbbbbbb: none,
      cccccccc: [tokenOf(c, 1)],
      dddddddd: [tokenOf(c, 1), tokenOf(d, 1)],
    },
    "c's pass told c and d; d's told d, and the older waiter after it on the key's channel, which it hears",
  );
  await store.close();
});

test('a claim its waiter leaves unconfirmed (a stalled process) goes to the next in line long before it ends', async (t) => {
  const L = defineLock({ businessFlag: flag('stalled'), retries: 200, waitTime: 5_000 });
  const key = L.keyFor('K');
  const { line } = waitingLineOf(key);
  // The holder and a waiter that stands first in line and then stalls (it never confirms a claim)
  // are in other processes than this caller: stores of their own.
  const elsewhere = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  const giveUp = new AbortController();
  let next: Promise<Lease> | undefined;
  try {
    t.true(await elsewhere.tryAcquire(key, 'holder', 10_000));
    const stalled = place('stalled', 10_000);
    t.false(await elsewhere.tryAcquireInTurn(key, stalled));
    next = L.acquire('K', undefined, giveUp.signal) as Promise<Lease>;
    await until(async () => (await fixture.redis.zcard(line)) === 2, 5_000);
    // This process hears the key's notices (on a loaded machine its subscription may come after its place).
    await until(async () => (await heardChannels(fixture.redis, key)).length > 0, 20_000);
    const releasedAt = Date.now();
    t.is(await elsewhere.release(key, 'holder'), 'passed');
    t.is(await fixture.redis.get(key), 'stalled', 'passed to the first in line, as a claim');
    const lease = await next;
    const waitedMs = Date.now() - releasedAt;
    // Not the claim's 2 s, nor this caller's scheduled attempt (5 s): this process watched the claim
    // go unconfirmed (CLAIM_FIRM_MS) and took it over. The bound is loose for a loaded machine.
    t.true(waitedMs < CLAIM_MS / 2, `got the key ${waitedMs} ms after the release`);
    t.is(await fixture.redis.get(lease.key), lease.token);
    t.is(await fixture.redis.exists(claimMarkOf(lease.key)), 0, "the claim's mark went with it");
    // The stalled waiter comes back: the key is not its own, and it stands first in line again.
    t.false(await elsewhere.tryAcquireInTurn(lease.key, stalled));
    t.deepEqual(await fixture.redis.zrange(line, 0, -1), ['stalled']);
    await lease.release();
    t.is(await fixture.redis.get(lease.key), 'stalled', 'passed to it again at the next release');
    t.true(await elsewhere.tryAcquireInTurn(lease.key, stalled));
    await elsewhere.release(lease.key, 'stalled');
  } finally {
    // A failed check must not leave this caller waiting (200 × 5 s), nor the other store's connection open.
    giveUp.abort(new Error('the test ended'));
    await next?.catch(() => undefined);
    await elsewhere.close();
  }
});

test('a pass binds a waiter that came a moment ago and whose process hears it: the key is its own for its lease, and nobody may take it', async (t) => {
  const store = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  t.teardown(() => store.close());
  const key = `LOCK_${flag('binds')}`;
  const mark = claimMarkOf(key);
  const [a, b, c] = [tokenOf('aaaaaaaa', 1), tokenOf('bbbbbbbb', 1), tokenOf('cccccccc', 1)];
  // a's and b's processes listen; c's does not (it died: Redis closed its connections).
  const listener = new Redis(fixture.server.url);
  t.teardown(() => listener.disconnect());
  await listener.subscribe(heardAt(key, a), heardAt(key, b));
  t.true(await store.tryAcquire(key, 'holder', 10_000));
  t.false(await store.tryAcquireInTurn(key, place(c, 10_000)));
  t.false(await store.tryAcquireInTurn(key, { ...place(a, 10_000), leaseMs: 7_000 }));
  const bPlacedAt = Date.now();
  t.false(await store.tryAcquireInTurn(key, place(b, 10_000)));
  t.is(await store.release(key, 'holder'), 'passed');
  t.is(await fixture.redis.get(mark), c, "c's process hears nothing: a claim, which the next in line may take");
  t.true(await store.tryAcquireInTurn(key, place(a, 10_000), c), 'taken as stale');
  t.is(await store.release(key, a), 'passed');
  t.is(await fixture.redis.get(key), b);
  // b took its place a few round trips before: within BINDS_WITHIN_MS unless the machine is loaded.
  const sincePlace = Date.now() - bPlacedAt;
  if (sincePlace >= BINDS_WITHIN_MS && (await fixture.redis.get(mark)) === b) {
    t.log(
      `b placed ${sincePlace} ms before the pass (a loaded machine): a claim, not a binding pass; the rest not checked`,
    );
    return;
  }
  t.is(await fixture.redis.exists(mark), 0, 'binding: no mark');
  const pttl = await fixture.redis.pttl(key);
  t.true(pttl > 9_000 && pttl <= 10_000, `b's own lease, as its first attempt noted it: ${pttl} ms left`);
  t.false(await store.tryAcquireInTurn(key, place(c, 10_000), b), 'named stale by the next in line: not taken');
  t.is(await fixture.redis.get(key), b);
  // c has stood in line past BINDS_WITHIN_MS (and its process does not hear): a claim.
  await sleep(BINDS_WITHIN_MS + 100);
  t.is(await store.release(key, b), 'passed');
  t.is(await fixture.redis.get(mark), c);
  t.true(await store.tryAcquireInTurn(key, place(c, 10_000)), 'confirmed');
  t.is(await fixture.redis.exists(mark), 0);
  // A token that names no process (an older lockweave's) is never bound: its runtime could not read the notice.
  t.false(await store.tryAcquireInTurn(key, place('3f2a1c9e-5b7d-4e11-9a3c-2d4e6f8a0b1c', 10_000)));
  t.is(await store.release(key, c), 'passed');
  t.is(await fixture.redis.get(mark), '3f2a1c9e-5b7d-4e11-9a3c-2d4e6f8a0b1c');
  t.is(await fixture.redis.exists(waitingLineOf(key).leases), 0, 'no lease noted for a waiter that left the line');
});

test('a place taken in a line an older lockweave made, which keeps no leases, notes its lease in a hash that ends with the line', async (t) => {
  const store = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  t.teardown(() => store.close());
  const key = `LOCK_${flag('upgrade')}`;
  const { line, lapses, leases } = waitingLineOf(key);
  const newer = tokenOf('aaaaaaaa', 1);
  t.true(await store.tryAcquire(key, 'holder', 10_000));
  // An older lockweave's waiter: its place and lapse, the line's TTL longer than the next place's grace.
  await fixture.redis
    .multi()
    .zadd(line, 1, 'older')
    .pexpire(line, 60_000)
    .zadd(lapses, Date.now() + 60_000, 'older')
    .pexpire(lapses, 60_000)
    .exec();
  t.false(await store.tryAcquireInTurn(key, place(newer, 10_000)));
  t.is(await fixture.redis.hexists(leases, newer), 1);
  const lasts = await fixture.redis.pttl(leases);
  t.true(lasts > 50_000 && lasts <= 60_000, `the leases hash ends with the line: ${lasts} ms left`);
});

test('a waiter a pass binds runs its body on the notice, its lease counted from its first attempt in turn', async (t) => {
  const L = defineLock({ businessFlag: flag('on-notice'), retries: 200, waitTime: 5_000 });
  const key = L.keyFor('K');
  const elsewhere = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  // What Redis runs, in its order: a script call is [evalsha, sha, numkeys, ...keys, ...args].
  const monitor = await monitorRedis(fixture.server.url);
  const { sent } = monitor;
  const giveUp = new AbortController();
  let next: Promise<Lease> | undefined;
  try {
    t.true(await elsewhere.tryAcquire(key, 'holder', 10_000));
    const startedAt = Date.now();
    next = L.acquire('K', undefined, giveUp.signal) as Promise<Lease>;
    // Looked for often: the pass must come well within BINDS_WITHIN_MS of the waiter's place to bind.
    await until(async () => (await fixture.redis.zcard(waitingLineOf(key).line)) === 1, {
      timeoutMs: 5_000,
      everyMs: 1,
    });
    await until(async () => (await heardChannels(fixture.redis, key)).length > 0, { timeoutMs: 20_000, everyMs: 1 });
    const releasedAt = Date.now();
    t.is(await elsewhere.release(key, 'holder'), 'passed');
    const lease = await next;
    // No confirming attempt after the pass (by its SHA, or an EVAL naming the token: the fallback). On a
    // machine so loaded that the waiter heard of the pass past BINDS_WITHIN_MS after its place, it
    // confirms. A marker sent now comes after anything the waiter sent before.
    await fixture.redis.get(`marker-${key}`);
    await until(() => sent.some((args) => args[0] === 'get' && args[1] === `marker-${key}`), 5_000);
    const confirming = sent
      .slice(sent.findIndex((args) => args[0] === 'evalsha' && args.includes(key) && args.includes('holder')))
      .filter(
        (args) =>
          (args[0] === 'evalsha' ? args[1] === ACQUIRE_IN_TURN.sha1 : args[0] === 'eval') && args.includes(lease.token),
      );
    if (releasedAt - startedAt < BINDS_WITHIN_MS / 2) t.deepEqual(confirming, [], 'the body started on the notice');
    else t.log(`placed and heard ${releasedAt - startedAt} ms before the pass: ${confirming.length} confirming`);
    t.true(lease.held);
    t.true((await fixture.redis.pttl(key)) > CLAIM_MS, 'its lease, not a claim');
    await lease.release();
    t.is(await fixture.redis.exists(key), 0);
  } finally {
    giveUp.abort(new Error('the test ended'));
    await next?.catch(() => undefined);
    await elsewhere.close();
    monitor.close();
  }
});

// CRC16/XMODEM, as Redis Cluster hashes keys, to check that a line shares its key's slot.
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
function slotOf(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return crc16(close > open + 1 ? key.slice(open + 1, close) : key) % 16384;
}

// The one exception, a key with a `}` but no hash tag, fails on Cluster with CROSSSLOT (see waiting-line.ts).
test("the line and the fencing counter of a key hash to the key's own Cluster slot, with or without a hash tag", (t) => {
  const keys = [
    'LOCK_payOrder_Test001',
    'LOCK_x_{user42}_o7',
    'LOCK_{x}{y}',
    'LOCK_a{b',
    'LOCK_["U7","O42"]',
    'LOCK_ü_ß',
  ];
  for (const key of keys) {
    const { line, lapses } = waitingLineOf(key);
    t.is(slotOf(line), slotOf(key), `${key} → ${line}`);
    t.is(slotOf(lapses), slotOf(key), `${key} → ${lapses}`);
    t.is(slotOf(fenceCounterOf(key)), slotOf(key), `${key} → ${fenceCounterOf(key)}`);
  }
});

test('a waiter reserved as successor, whose timer came due meanwhile, wakes when the release goes to another', async (t) => {
  const waiter = new Waiter(
    'k',
    'token',
    { leaseMs: 10_000, placeLastsMs: 10_000, fenced: false, takesOver: false, startsOnPass: false },
    () => undefined,
  );
  let woke = false;
  const slept = waiter.sleep(waiter.epoch, 50).then(() => (woke = true));
  waiter.reserve(); // a release that names it is in flight
  await sleep(200); // its timer fires meanwhile, and must not wake it yet
  t.false(woke, 'a reserved waiter is not woken by its timer: the release may hand it the key');
  waiter.unreserve(false); // the key went to someone else
  // The bound's timer is cleared once it woke: a sleep(5_000) left running kept the worker alive
  // 5 s past the file's last test.
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([slept, new Promise((resolve) => (bound = setTimeout(resolve, 5_000)))]);
  clearTimeout(bound);
  t.true(woke, 'it wakes to look at its schedule; before, it slept on past its deadline');
});
