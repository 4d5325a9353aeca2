// Fencing tokens on the in-process store, and currentLock(): what a locked body sees of its own lock.
import test from 'ava';
import {
  configure,
  currentLock,
  defineLock,
  LockAcquireError,
  LockError,
  MemoryLockStore,
  withLock,
  type Grant,
  type Lease,
  type LockStore,
  type PlaceInLine,
} from 'lockweave';
import { sleep } from '../helpers/time';

const store = new MemoryLockStore();
configure({ store });

let counter = 0;
const flag = (label: string) => `${label}-${++counter}`;

test('fences strictly increase over grants by every path: first attempt, in turn after waiting, handed over', async (t) => {
  const L = defineLock({ businessFlag: flag('paths'), fencing: true, retries: 20, waitTime: 100 });
  const first = (await L.acquire('k')) as Lease;
  t.is(typeof first.fence, 'number');
  const handed = L.acquire('k') as Promise<Lease>; // waits in this process: the release hands it over
  await sleep(50);
  await first.release();
  const second = await handed;
  t.true(second.fence! > first.fence!, `${second.fence} > ${first.fence}`);
  // In turn: the key is held by a foreign token that expires; the waiter's own attempt takes it.
  await second.release();
  await store.tryAcquire(second.key, 'foreign', 150);
  const third = (await L.acquire('k')) as Lease;
  t.true(third.fence! > second.fence!, `${third.fence} > ${second.fence}`);
  await third.release();
});

test('a fence is never below the clock in microseconds, so a new store (a failover) keeps counting up', async (t) => {
  const before = Date.now() * 1000;
  const other = new MemoryLockStore();
  const fence = await other.tryAcquire('k', 'token', 1_000, true);
  t.true(typeof fence === 'number' && fence >= before);
  t.is(await other.tryAcquire('k2', 'token', 1_000), true, 'without fencing a grant is plain true');
  await other.close();
});

test('without fencing lease.fence and currentLock().fence are undefined', async (t) => {
  const L = defineLock({ businessFlag: flag('plain') });
  await L.run('k', async () => {
    t.is(currentLock().fence, undefined);
  });
});

test.serial('configure({ defaults: { fencing: true } }) fences every lock; a spec can turn it off', async (t) => {
  configure({ defaults: { fencing: true } });
  try {
    const on = defineLock({ businessFlag: flag('default') });
    const off = defineLock({ businessFlag: flag('default'), fencing: false });
    await on.run('k', async () => t.is(typeof currentLock().fence, 'number'));
    await off.run('k', async () => t.is(currentLock().fence, undefined));
  } finally {
    configure({ defaults: { fencing: false } });
  }
});

test('a fencing option that is not a boolean is refused', (t) => {
  t.throws(() => defineLock({ businessFlag: 'x', fencing: 'yes' as unknown as boolean }), {
    message: /option fencing must be true or false/,
  });
});

test('currentLock() inside a locked body: its key, fence and lost-lock signal', async (t) => {
  const L = defineLock({ businessFlag: flag('inside'), fencing: true });
  let seen: Lease | undefined;
  const lease = (await L.acquire('k')) as Lease;
  await lease.run(async () => {
    const lock = currentLock();
    t.is(lock.key, lease.key);
    t.is(lock.fence, lease.fence);
    t.is(lock.signal, lease.signal);
    t.false(lock.signal.aborted);
    seen = lease;
  });
  await lease.release();
  t.truthy(seen);
  await withLock({ businessFlag: flag('with'), key: 'k', fencing: true }, async (held) => {
    t.is(currentLock().fence, held.fence);
    t.is(currentLock().key, held.key);
  });
});

test('currentLock() outside any locked body throws LockError: a fenced write must not go ahead unfenced', async (t) => {
  const error = t.throws(() => currentLock(), { instanceOf: LockError });
  t.regex(error!.message, /outside a locked body/);
  // Not inside lock()'s lease either, until its code runs through lease.run().
  const L = defineLock({ businessFlag: flag('outside') });
  const lease = (await L.acquire('k')) as Lease;
  t.throws(() => currentLock(), { instanceOf: LockError });
  await lease.release();
});

test('nested locks: currentLock() is the innermost; a reentrant call keeps the outer grant and its fence', async (t) => {
  const outer = defineLock({ businessFlag: flag('outer'), fencing: true });
  const inner = defineLock({ businessFlag: flag('inner'), fencing: true });
  await outer.run('a', async () => {
    const mine = currentLock();
    // Fences count per key: another key's may equal this one's (two grants in one millisecond).
    // So the inner body's lock is told by its key and by its own lease's fence.
    const innerLease = (await inner.acquire('b'))!;
    await innerLease.run(async () => {
      t.not(currentLock().key, mine.key);
      t.true(currentLock().fence! > 0);
      t.is(currentLock().fence, innerLease.fence);
    });
    await innerLease.release();
    await outer.run('a', async () => {
      t.is(currentLock().key, mine.key);
      t.is(currentLock().fence, mine.fence, 'a reentrant call runs under the outer grant');
    });
    t.is(currentLock().key, mine.key, 'back in the outer body');
  });
});

test('a reentrant=false body is its own currentLock(), and a nested call on its key still does not walk in', async (t) => {
  const outer = defineLock({ businessFlag: flag('strict'), fencing: true, reentrant: false });
  const nested = defineLock({ businessFlag: outer.spec.businessFlag, retries: 0 });
  const other = defineLock({ businessFlag: flag('around'), fencing: true });
  await other.run('x', async () => {
    await outer.run('k', async () => {
      t.is(currentLock().key, outer.keyFor('k'), 'not the lock around it');
      await t.throwsAsync(
        nested.run('k', async () => 'in'),
        { instanceOf: LockAcquireError },
      );
    });
  });
});

test('a callback the body left running gets LockError once the body has ended', async (t) => {
  const L = defineLock({ businessFlag: flag('ended'), fencing: true });
  let seen: unknown;
  const fired = new Promise<void>((resolve) => {
    void L.run('k', async () => {
      // Scheduled by the body, it inherits the body's context, and fires after the body ended.
      setTimeout(() => {
        try {
          seen = currentLock();
        } catch (error) {
          seen = error;
        }
        resolve();
      }, 100);
    });
  });
  await fired;
  t.true(seen instanceof LockError, String(seen));
  t.regex((seen as Error).message, /after the locked body of .* ended/);
});

test.serial(
  'a store that grants without the fencing token asked for fails the caller, and gets its key back',
  async (t) => {
    const inner = new MemoryLockStore();
    // A store from before fencing: it ignores `fenced` and answers true.
    const unfencing: LockStore = {
      tryAcquire: (key, token, leaseMs): Promise<Grant> => inner.tryAcquire(key, token, leaseMs),
      tryAcquireInTurn: (key, waiter: PlaceInLine) => inner.tryAcquireInTurn(key, { ...waiter, fenced: false }),
      renew: (key, token, leaseMs) => inner.renew(key, token, leaseMs),
      release: (key, token, succession) => inner.release(key, token, succession),
      leave: (key, token) => inner.leave(key, token),
      listen: (key, notice) => inner.listen(key, notice),
      unlisten: (key) => inner.unlisten(key),
      close: () => inner.close(),
    };
    configure({ store: unfencing });
    try {
      const L = defineLock({ businessFlag: flag('unfencing'), fencing: true, retries: 3, waitTime: 5_000 });
      const started = Date.now();
      const error = await t.throwsAsync(
        L.run('k', async () => t.fail('the body ran without its fence')),
        { instanceOf: LockAcquireError },
      );
      t.true(Date.now() - started < 4_000, 'at once, not after the whole wait');
      t.regex(String((error!.cause as Error).message), /without a fencing token/);
      t.is(inner.holder(L.keyFor('k')), undefined, 'the key was given back');
      const plain = defineLock({ businessFlag: flag('unfencing') });
      t.is(
        await plain.run('k', async () => currentLock().fence),
        undefined,
        'without fencing the store serves as before',
      );
    } finally {
      configure({ store });
    }
  },
);
