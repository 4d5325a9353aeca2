// The promises every store keeps, written once and run against each store
// (the Redis store in redis-lock.test.ts, the in-process store in memory-lock.test.ts).
import type { TestFn } from 'ava';
import {
  defineLock,
  withLock,
  lock,
  LockAcquireError,
  LockLostError,
  NestedLease,
  type LockEvent,
  type LockSpec,
} from 'lockweave';
import { uniqueId } from '../helpers/redis-fixture';
import { sleep, until } from '../helpers/time';
import { leaseControl } from './lease-control';

export interface StoreProbe {
  /** The token stored under `key`, or undefined/null when the key is absent. */
  holder(key: string): Promise<string | null | undefined>;
  /** Remaining lease in ms; negative when absent. */
  pttl(key: string): Promise<number>;
  /** Lock events the runtime reported during the file's tests. */
  events: LockEvent[];
}

const flag = (label: string) => uniqueId(label);
const spec = (label: string, options: Partial<LockSpec> = {}) => defineLock({ businessFlag: flag(label), ...options });

/** What a store offers beyond the promises every store keeps. */
export interface StoreOffers {
  /** Fencing tokens (default true); Redlock has none, and must refuse a lock that asks for them. */
  fencing?: boolean;
  /** A line of waiters that inspect() counts (default true); Redlock has none. */
  line?: boolean;
}

export function lockSemantics(test: TestFn, probe: () => StoreProbe, offers: StoreOffers = {}): void {
  /**
   * Resolves once `count` callers wait for `key`: each has taken its place in line and reported
   * 'waiting' (a caller reports it after its place is taken). An event to wait on, not a guess at
   * how long a loaded machine takes to get there.
   */
  const waiting = (key: string, count = 1) =>
    until(() => probe().events.filter((e) => e.type === 'waiting' && e.key === key).length >= count, {
      what: `${count} caller(s) waiting for ${key}`,
      timeoutMs: 20_000,
    });

  test('acquire stores the lease token under the key with the lease as TTL; release deletes it', async (t) => {
    const L = spec('basic', { lockTime: 10_000 });
    const lease = await L.acquire('Test001');
    t.is(lease!.key, L.keyFor('Test001'));
    t.is(await probe().holder(lease!.key), (lease as { token: string }).token);
    const ttl = await probe().pttl(lease!.key);
    t.true(ttl > 5_000 && ttl <= 10_000, `ttl ${ttl}`);
    await lease!.release();
    t.falsy(await probe().holder(lease!.key));
  });

  test('a second caller cannot take a held key; with retries=0 it fails after one attempt', async (t) => {
    const L = spec('exclusive', { retries: 0 });
    const first = await L.acquire('A');
    const error = await t.throwsAsync(
      L.acquire('A').then(() => undefined),
      { instanceOf: LockAcquireError },
    );
    t.is(error!.attempts, 1);
    t.is(error!.key, L.keyFor('A'));
    t.is(await probe().holder(first!.key), (first as { token: string }).token);
    await first!.release();
  });

  test('retries=10: eleven attempts, for a caller alone and for callers queued behind another in their process', async (t) => {
    // waitTime leaves room for slow answers: attempts answered later than the schedule are fewer
    // (acquire.ts's deadlineOf), and a loaded 2-core machine running a Cluster is slow at times.
    const L = spec('eleven', { retries: 10, waitTime: 150 });
    const holder = await L.acquire('A');
    const errors = await Promise.all(
      [1, 2, 3].map(() =>
        L.acquire('A').then(
          () => undefined,
          (error: LockAcquireError) => error,
        ),
      ),
    );
    t.deepEqual(
      errors.map((error) => error?.attempts),
      [11, 11, 11],
    );
    await holder!.release();
  });

  test('when the holder never lets go, the caller gives up after retries × waitTime with LockAcquireError', async (t) => {
    // Attempts 400 ms apart: room for a slow answer on a loaded machine, as for 'eleven' above.
    const L = spec('exhaust', { retries: 2, waitTime: 400 });
    const holder = await L.acquire('A');
    const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
    t.is(error!.attempts, 3, 'the first attempt and retries=2 more: nothing released the key in between');
    t.true(error!.waitedMs >= 750 && error!.waitedMs < 10_000, `waited ${error!.waitedMs}`);
    t.regex(error!.message, /could not acquire .* after \d+ attempt/);
    await holder!.release();
  });

  test('a waiter wakes when the holder releases, not at its next scheduled attempt', async (t) => {
    const L = spec('wake', { retries: 1, waitTime: 60_000 });
    const holder = await L.acquire('A');
    const started = Date.now();
    const waiter = L.acquire('A');
    await waiting(holder!.key);
    await holder!.release();
    const lease = await waiter;
    // The scheduled attempt would come after 60 s; anything far below proves the wake-up.
    t.true(Date.now() - started < 20_000);
    await lease!.release();
  });

  test('a caller whose lease ran out never deletes the lock a new holder took, and is told it lost it', async (t) => {
    const L = spec('expired', { lockTime: 150, watchdog: false, retries: 0 });
    const first = await L.acquire('A');
    await sleep(400);
    const second = await L.acquire('A');
    await first!.release();
    t.is(await probe().holder(second!.key), (second as { token: string }).token);
    const lost = probe().events.find((e) => e.type === 'lost' && e.token === (first as { token: string }).token);
    t.truthy(lost);
    t.true((lost as { error: Error }).error instanceof LockLostError);
    await second!.release();
    t.falsy(await probe().holder(second!.key));
  });

  test('the watchdog renews the lease while the body runs; without it the lease runs out', async (t) => {
    // A lease long enough that a renewal late by a loaded machine's stall (up to two thirds of it)
    // still comes in time, and a wait over twice as long, so the unwatched one has run out.
    const watched = spec('watchdog', { lockTime: 1_200 });
    const unwatched = spec('nowatchdog', { lockTime: 1_200, watchdog: false });
    const a = await watched.acquire('A');
    const b = await unwatched.acquire('A');
    await sleep(3_000);
    t.is(await probe().holder(a!.key), (a as { token: string }).token);
    t.true(a!.held);
    t.falsy(await probe().holder(b!.key));
    t.true(probe().events.some((e) => e.type === 'renewed' && e.key === a!.key));
    await a!.release();
    await b!.release();
  });

  test('autoUnlock=false keeps the key after the body until its lease ends', async (t) => {
    // A lease long enough that a loaded machine reads the key before it ends (400 ms did not always).
    const L = spec('keep', { autoUnlock: false, lockTime: 1_500 });
    const lease = await L.acquire('A');
    await lease!.release();
    t.is(await probe().holder(lease!.key), (lease as { token: string }).token);
    await sleep(2_500);
    t.falsy(await probe().holder(lease!.key));
  });

  test('concurrent callers take turns: a read-modify-write under the lock loses no update', async (t) => {
    // Callers loop, as request handlers do: each next call starts from the caller's own async
    // context, which must never look as if it held another caller's lock (it once did, through
    // a leaky AsyncLocalStorage.enterWith, when a release handed the key to a waiter).
    const L = spec('counter', { retries: 1_000, waitTime: 1_000 });
    let counter = 0;
    let inside = 0;
    let overlaps = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let call = 0; call < 20; call++) {
          await withLockOf(L, 'hot', async () => {
            if (++inside > 1) overlaps++;
            const read = counter;
            await sleep(0);
            counter = read + 1;
            inside--;
          });
        }
      }),
    );
    t.is(overlaps, 0);
    t.is(counter, 16 * 20);
  });

  test('waiters in one process are served in the order they arrived', async (t) => {
    const L = spec('fifo', { retries: 1, waitTime: 60_000 });
    const holder = await L.acquire('A');
    const served: number[] = [];
    const waiters: Promise<void>[] = [];
    for (const id of [1, 2, 3, 4]) {
      // They arrive one after another while the key is held: each once the one before waits in line.
      waiters.push(
        withLockOf(L, 'A', async () => {
          served.push(id);
        }),
      );
      await waiting(holder!.key, id);
    }
    await holder!.release();
    await Promise.all(waiters);
    t.deepEqual(served, [1, 2, 3, 4]);
  });

  test('a nested call in the same async chain re-enters without a round trip; only the outer exit releases', async (t) => {
    const L = spec('reentrant');
    const outer = await L.acquire('A');
    await outer!.run(async () => {
      const inner = await L.acquire('A');
      t.true(inner instanceof NestedLease);
      t.true(probe().events.some((e) => e.type === 'reentered' && e.key === outer!.key));
      await inner!.release();
      t.is(await probe().holder(outer!.key), (outer as { token: string }).token);
    });
    await outer!.release();
    t.falsy(await probe().holder(outer!.key));
  });

  test('nested calls started side by side inside the holder take turns; a call nested in a nested call enters at once', async (t) => {
    const L = spec('siblings', { retries: 2, waitTime: 10_000 });
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const job = (name: string) => () =>
      withLockOf(L, 'A', async () => {
        most = Math.max(most, ++inside);
        order.push(`${name} in`);
        await sleep(60);
        // Nested in a nested call: its own chain holds the key, so it goes straight in (no deadlock).
        await withLockOf(L, 'A', async () => order.push(`${name} inner`));
        order.push(`${name} out`);
        inside--;
      });
    await withLockOf(L, 'A', async () => {
      await Promise.all([job('one')(), job('two')(), job('three')()]);
    });
    t.is(most, 1, 'never two sibling bodies inside the lock at once');
    t.deepEqual(order, [
      'one in',
      'one inner',
      'one out',
      'two in',
      'two inner',
      'two out',
      'three in',
      'three inner',
      'three out',
    ]);
    t.falsy(await probe().holder(L.keyFor('A')));
  });

  test('a nested sibling waits no longer than its wait bound: retries=0 fails at once while another sibling runs', async (t) => {
    const L = spec('sibling-bound', { retries: 0 });
    await withLockOf(L, 'A', async () => {
      const first = withLockOf(L, 'A', () => sleep(100));
      const second = withLockOf(L, 'A', async () => t.fail('ran beside its sibling'));
      await t.throwsAsync(second, { instanceOf: LockAcquireError });
      await first;
    });
  });

  test('another async chain does not inherit the lock: it waits for the release', async (t) => {
    const L = spec('chains', { retries: 1, waitTime: 60_000 });
    const order: string[] = [];
    const first = withLockOf(L, 'A', async () => {
      order.push('first in');
      await sleep(150);
      order.push('first out');
    });
    await until(() => order.includes('first in'), { what: 'the first chain holding the lock' });
    const second = withLockOf(L, 'A', async () => order.push('second in'));
    await Promise.all([first, second]);
    t.deepEqual(order, ['first in', 'first out', 'second in']);
  });

  test('reentrant=false: a nested call for the held key is refused, not let in', async (t) => {
    const L = spec('nonreentrant', { reentrant: false, retries: 0 });
    const outer = await L.acquire('A');
    await outer!.run(() => t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError }));
    await outer!.release();
  });

  test('onFail=skip resolves undefined; a failure class rejects with that class', async (t) => {
    class PayRefused extends Error {}
    const L = spec('onfail', { retries: 0, onFail: 'skip' });
    const holder = await L.acquire('A');
    t.is(await L.acquire('A'), undefined);
    const error = await t.throwsAsync(L.acquire('A', PayRefused), { instanceOf: PayRefused });
    t.regex(error!.message, /could not acquire/);
    await holder!.release();
  });

  test('withLock returns the body result and rethrows its error unchanged, releasing either way', async (t) => {
    const businessFlag = flag('withlock');
    t.is(await withLock({ businessFlag, key: 'A' }, async () => 'paid'), 'paid');
    const failure = new RangeError('card declined');
    const thrown = await t.throwsAsync(
      withLock({ businessFlag, key: 'A' }, async () => {
        throw failure;
      }),
    );
    t.is(thrown, failure);
    t.falsy(await probe().holder(`LOCK_${businessFlag}_A`));
  });

  test('await using releases the lease at the end of the block', async (t) => {
    const businessFlag = flag('using');
    {
      await using lease = await lock({ businessFlag, key: ['U1', 'O2'] });
      t.is(await probe().holder(lease.key), (lease as { token: string }).token);
    }
    t.falsy(await probe().holder(`LOCK_${businessFlag}_["U1","O2"]`));
  });

  if (offers.fencing === false) {
    test('a lock that asks for fencing is refused, saying why; nothing is locked', async (t) => {
      const businessFlag = flag('fenced');
      // Refused where the options meet (defineLock, or the first acquire when configure() brings one of them).
      const error = await t.throwsAsync(async () =>
        defineLock({ businessFlag, fencing: true, retries: 0 }).acquire('A'),
      );
      t.regex(error!.message, /fencing/);
      t.falsy(await probe().holder(`LOCK_${businessFlag}_A`));
    });
    return;
  }

  test('with fencing, each grant (first attempts, a hand-over) carries a larger number', async (t) => {
    const L = spec('fenced', { fencing: true, retries: 50, waitTime: 100 });
    const first = await L.acquire('A');
    const handed = L.acquire('A');
    await waiting(first!.key);
    await first!.release();
    const second = await handed;
    await second!.release();
    const third = await L.acquire('A');
    await third!.release();
    const fences = [first, second, third].map((lease) => (lease as { fence?: number }).fence);
    t.true(
      fences.every((fence) => typeof fence === 'number'),
      String(fences),
    );
    t.true(fences[0]! < fences[1]! && fences[1]! < fences[2]!, String(fences));
  });

  leaseControl(test, probe, offers);
}

async function withLockOf(L: ReturnType<typeof defineLock>, key: string, body: () => Promise<unknown>): Promise<void> {
  const lease = await L.acquire(key);
  try {
    await lease!.run(body);
  } finally {
    await lease!.release();
  }
}
