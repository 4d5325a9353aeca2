// What a caller can do with a lock beyond take and release — extend it, stop its renewal, look at
// it, lock a business without a key — written once and run against every store (lockSemantics
// calls it), so a Redlock majority, a Cluster, Sentinel and the in-process store keep one meaning.
import type { TestFn } from 'ava';
import { getEventListeners } from 'node:events';
import {
  currentLock,
  defineLock,
  inspect,
  lock,
  LockAcquireError,
  LockLostError,
  withLock,
  type LockSpec,
} from 'lockweave';
import { uniqueId } from '../helpers/redis-fixture';
import { sleep, until } from '../helpers/time';
import type { StoreOffers, StoreProbe } from './lock-semantics';

const spec = (label: string, options: Partial<LockSpec> = {}) =>
  defineLock({ businessFlag: uniqueId(label), ...options });

export function leaseControl(test: TestFn, probe: () => StoreProbe, offers: StoreOffers): void {
  test('extend(ms) makes the key last ms from now; the watchdog then renews by ms, not by lockTime', async (t) => {
    const L = spec('extend', { lockTime: 900 });
    const lease = (await L.acquire('A'))!;
    await lease.extend(20_000);
    t.true((await probe().pttl(lease.key)) > 10_000, 'extended past lockTime');
    // The old schedule would have renewed to 900 ms by now (every 300 ms).
    await sleep(1_000);
    t.true((await probe().pttl(lease.key)) > 10_000, 'not cut back by a renewal of lockTime');
    t.true(lease.held);
    await lease.release();
    t.falsy(await probe().holder(lease.key));
  });

  test('extend() refuses a bad length, and a lease released or run out: LockLostError, nothing sent', async (t) => {
    const L = spec('extend-refused', { lockTime: 400, watchdog: false });
    const lease = (await L.acquire('A'))!;
    for (const ms of [0, -1, 1.5, Number.NaN, 2 ** 31])
      await t.throwsAsync(lease.extend(ms), { instanceOf: RangeError }, String(ms));
    await until(async () => (await probe().pttl(lease.key)) < 0, { what: 'the lease to run out', timeoutMs: 20_000 });
    await until(() => !lease.held, { what: 'the lease to count itself ended' });
    await t.throwsAsync(lease.extend(5_000), { instanceOf: LockLostError });
    t.falsy(await probe().holder(lease.key), 'not set again');
    await lease.release();
    const second = (await L.acquire('B'))!;
    await second.release();
    const error = await t.throwsAsync(second.extend(5_000), { instanceOf: LockLostError });
    t.regex(error!.message, /released/);
  });

  test('stopRenewal() lets the lease run out at its TTL; the release after it changes nothing', async (t) => {
    const L = spec('stop-renewal', { lockTime: 600 });
    const lease = (await L.acquire('A'))!;
    lease.stopRenewal();
    await until(async () => !(await probe().holder(lease.key)), { what: 'the key to lapse', timeoutMs: 20_000 });
    await until(() => !lease.held, { what: 'the lease to count itself ended' });
    await lease.release();
    t.falsy(await probe().holder(lease.key));
  });

  test("currentLock().extend() and stopRenewal() reach the body's own lease", async (t) => {
    const flag = uniqueId('current-extend');
    const ttl = await withLock({ businessFlag: flag, key: 'A', lockTime: 2_000 }, async () => {
      await currentLock().extend(30_000);
      currentLock().stopRenewal();
      return probe().pttl(currentLock().key);
    });
    t.true(ttl! > 20_000, `ttl ${ttl}`);
  });

  test('inspect() reads held or free, the TTL, the live waiters and the last fence', async (t) => {
    const fencing = offers.fencing !== false;
    const businessFlag = uniqueId('inspect');
    const free = await inspect({ businessFlag, key: 'A' });
    t.like(free, { held: false, ttlMs: undefined, fence: undefined });
    t.is(free.key, defineLock({ businessFlag }).keyFor('A'));
    const lease = await lock({ businessFlag, key: 'A', lockTime: 20_000, fencing });
    const waiter = withLock(
      { businessFlag, key: 'A', lockTime: 20_000, fencing, retries: 1, waitTime: 30_000 },
      () => 1,
    );
    const held = await inspect({ businessFlag, key: 'A' });
    t.true(held.held);
    t.true(held.ttlMs! > 10_000 && held.ttlMs! <= 20_000, `ttl ${held.ttlMs}`);
    t.is(held.fence, fencing ? lease.fence : undefined);
    if (offers.line !== false)
      await until(async () => (await inspect({ businessFlag, key: 'A' })).waiters === 1, {
        what: 'one waiter in line',
      });
    else t.is(held.waiters, undefined, 'no line to count');
    await lease.release();
    t.is(await waiter, 1);
    const after = await inspect({ businessFlag, key: 'A' });
    t.like(after, { held: false, waiters: offers.line === false ? undefined : 0 });
  });

  test("keyless: true locks the business's one key; a request must name a key or say keyless", async (t) => {
    const businessFlag = uniqueId('keyless');
    const lease = await lock({ businessFlag, keyless: true, lockTime: 20_000 });
    t.is(lease.key, `LOCK_${businessFlag}`);
    t.true((await inspect({ businessFlag, keyless: true })).held);
    t.is(await withLock({ businessFlag, keyless: true, retries: 0, onFail: 'skip' }, () => 'ran'), undefined);
    await lease.release();
    await t.throwsAsync(
      withLock({ businessFlag } as never, () => 1),
      { instanceOf: TypeError, message: /names no key/ },
    );
    await t.throwsAsync(
      withLock({ businessFlag, key: 'A', keyless: true }, () => 1),
      {
        instanceOf: TypeError,
        message: /names a key and keyless/,
      },
    );
    // A key that is there but undefined is the key's error, never the business's lock.
    await t.throwsAsync(
      withLock({ businessFlag, key: undefined }, () => 1),
      { name: 'LockKeyError' },
    );
  });

  test('minHold: a body that ends sooner leaves the key until acquiredAt + minHold; a later caller skips', async (t) => {
    const businessFlag = uniqueId('min-hold');
    const job = { businessFlag, keyless: true as const, lockTime: 20_000, minHold: 3_000, onFail: 'skip' as const };
    t.is(await withLock(job, () => 'ran'), 'ran');
    const key = `LOCK_${businessFlag}`;
    t.truthy(await probe().holder(key), 'kept after the body');
    // What is left of minHold, not a fresh lease (lockTime is 20 s); how much is left is the machine's business.
    const ttl = await probe().pttl(key);
    t.true(ttl > 0 && ttl <= 3_000, `ttl ${ttl}`);
    // Another instance's tick, a little later: the key is held, it skips.
    t.is(await withLock({ ...job, retries: 0 }, () => 'ran twice'), undefined);
    await until(async () => !(await probe().holder(key)), { what: 'the key to expire at minHold', timeoutMs: 20_000 });
    t.is(await withLock(job, () => 'next tick'), 'next tick');
  });

  test('minHold: a body that runs past it is released at once, with succession as always', async (t) => {
    const businessFlag = uniqueId('min-hold-past');
    const lease = await lock({ businessFlag, key: 'A', minHold: 100, lockTime: 20_000 });
    await sleep(200);
    await lease.release();
    t.falsy(await probe().holder(lease.key));
  });

  test('minHold past lockTime, or beside autoUnlock=false, is refused when the lock is made', (t) => {
    t.throws(() => defineLock({ businessFlag: 'refused', minHold: 5_000, lockTime: 1_000 }), {
      instanceOf: TypeError,
      message: /minHold \(5000 ms\) is longer than lockTime \(1000 ms\)/,
    });
    t.throws(() => defineLock({ businessFlag: 'refused', minHold: 5_000, autoUnlock: false }), {
      instanceOf: TypeError,
      message: /minHold and autoUnlock=false/,
    });
    t.throws(() => defineLock({ businessFlag: 'refused', minHold: -1 }), { message: /minHold must be/ });
  });

  test('keys: several locks at once, all or nothing; overlapping sets exclude each other, disjoint ones do not', async (t) => {
    const businessFlag = uniqueId('each');
    const held = await lock({ businessFlag, keys: ['b', 'a'], lockTime: 20_000 });
    t.deepEqual(held.keys, [`LOCK_${businessFlag}_a`, `LOCK_${businessFlag}_b`], 'sorted: one global order');
    await t.throwsAsync(
      withLock({ businessFlag, keys: ['c', 'b'], retries: 0 }, () => 'overlap'),
      {
        instanceOf: LockAcquireError,
      },
    );
    t.falsy(await probe().holder(`LOCK_${businessFlag}_c`), 'c, taken before b failed, was given back');
    t.is(await withLock({ businessFlag, keys: ['c', 'd'] }, () => 'disjoint'), 'disjoint');
    // Reentrant: a call in the body for one of its keys goes straight in.
    t.is(await held.run(() => withLock({ businessFlag, key: 'a', retries: 0 }, () => 'nested')), 'nested');
    await held.release();
    for (const key of held.keys) t.falsy(await probe().holder(key));
    await t.throwsAsync(
      withLock({ businessFlag, keys: [] }, () => 1),
      { name: 'LockKeyError' },
    );
    await t.throwsAsync(
      withLock({ businessFlag, keys: ['a', undefined] }, () => 1),
      { name: 'LockKeyError' },
    );
  });

  test('keys: callers naming overlapping keys in opposite orders never deadlock, and never overlap', async (t) => {
    const businessFlag = uniqueId('transfer');
    const inside = new Map<string, number>();
    let overlaps = 0;
    const transfer = (keys: string[]) =>
      withLock({ businessFlag, keys, retries: 60, waitTime: 1_000, lockTime: 20_000 }, async () => {
        for (const key of keys) if ((inside.get(key) ?? 0) > 0) overlaps++;
        for (const key of keys) inside.set(key, (inside.get(key) ?? 0) + 1);
        await sleep(10);
        for (const key of keys) inside.set(key, inside.get(key)! - 1);
        return keys.join('>');
      });
    const calls = Array.from({ length: 12 }, (_, i) => transfer(i % 2 ? ['x', 'y'] : ['y', 'x']));
    t.is((await Promise.all(calls)).length, 12);
    t.is(overlaps, 0);
  });

  test('signal: aborted before the call, nothing is sent; aborted while waiting, the call rejects at once with the reason and leaves the line', async (t) => {
    const businessFlag = uniqueId('abort');
    const before = new AbortController();
    before.abort(new Error('gone before'));
    await t.throwsAsync(
      withLock({ businessFlag, key: 'A', signal: before.signal }, () => 'ran'),
      {
        message: 'gone before',
      },
    );
    t.falsy(await probe().holder(`LOCK_${businessFlag}_A`), 'nothing taken');
    const holder = await lock({ businessFlag, key: 'A', lockTime: 20_000 });
    const controller = new AbortController();
    let ran = false;
    const waiting = withLock(
      { businessFlag, key: 'A', retries: 1, waitTime: 60_000, signal: controller.signal },
      () => (ran = true),
    );
    await until(() => probe().events.some((e) => e.type === 'waiting' && e.key === holder.key), {
      what: 'the caller waiting',
      timeoutMs: 20_000,
    });
    const abortedAt = Date.now();
    const reason = new Error('client went away');
    controller.abort(reason);
    t.is(await t.throwsAsync(waiting), reason, 'the reason itself, not a LockAcquireError');
    t.true(Date.now() - abortedAt < 5_000, 'at once, not at the next attempt a minute later');
    if (offers.line !== false)
      await until(async () => (await inspect({ businessFlag, key: 'A' })).waiters === 0, { what: 'the line left' });
    await holder.release();
    t.falsy(await probe().holder(holder.key), 'the key was not passed to the caller that left');
    t.false(ran);
  });

  test('signal: an abort while holding changes nothing; one signal for many calls keeps no listener', async (t) => {
    const businessFlag = uniqueId('abort-held');
    const controller = new AbortController();
    const result = await withLock({ businessFlag, key: 'A', signal: controller.signal }, async (lease) => {
      controller.abort();
      t.true(lease.held);
      return probe().holder(lease.key);
    });
    t.truthy(result, 'the body ran to its end holding the key');
    const shared = new AbortController();
    for (let i = 0; i < 200; i++) await withLock({ businessFlag, key: `k${i % 3}`, signal: shared.signal }, () => i);
    t.is(getEventListeners(shared.signal, 'abort').length, 0);
    await t.throwsAsync(
      withLock({ businessFlag, key: 'A', signal: {} as AbortSignal }, () => 1),
      {
        instanceOf: TypeError,
        message: /signal must be an AbortSignal/,
      },
    );
  });

  test('signal: a signal-like object that cannot take its listener off, or calls it early, strands no key', async (t) => {
    const businessFlag = uniqueId('odd-signal');
    const noRemove = { aborted: false, addEventListener() {} } as unknown as AbortSignal;
    await t.throwsAsync(
      withLock({ businessFlag, key: 'A', signal: noRemove }, () => 1),
      {
        instanceOf: TypeError,
        message: /signal must be an AbortSignal/,
      },
    );
    // Its removal throws: the lease the caller got is kept, the body runs, the key is released.
    const throwsOnRemove = {
      aborted: false,
      addEventListener() {},
      removeEventListener() {
        throw new Error('cannot');
      },
    } as unknown as AbortSignal;
    t.is(await withLock({ businessFlag, key: 'B', signal: throwsOnRemove }, () => 'ran'), 'ran');
    t.false((await inspect({ businessFlag, key: 'B' })).held, 'released');
    // It calls the listener at once, aborted or not: the caller is told no, and the key is given back.
    const callsAtOnce = {
      aborted: false,
      reason: new Error('early'),
      addEventListener(_type: string, listener: () => void) {
        listener();
      },
      removeEventListener() {},
    } as unknown as AbortSignal;
    let ran = false;
    const early = await t.throwsAsync(
      withLock({ businessFlag, key: 'C', signal: callsAtOnce }, () => {
        ran = true;
      }),
    );
    t.is(early?.message, 'early');
    t.false(ran);
    await until(async () => !(await inspect({ businessFlag, key: 'C' })).held, { what: 'the key given back' });
  });
}
