// A lease handed out inside a hold of its own key — `const l = await lock(req); …; await l.release()`
// in a withLock or woven body — is a nested lease: it holds a turn at the outer lease's reentry gate
// from lock() to its release. Two such sections take turns, one the body did not await keeps the
// outer release waiting, and one whose turn comes once the outer lease is gone fails. A body that is
// not async (throws before it returns, returns a plain value) never leaves a turn behind. A nested
// call that times out at the gate with an onFail class whose constructor throws rejects with that
// throw. A nested call that asks its grant for more than the outer grant gives (replicas, a key kept
// after the body) is refused.
import test from 'ava';
import {
  configure,
  defineLock,
  LockAcquireError,
  LockLostError,
  lock,
  MemoryLockStore,
  type Lease,
  type MultiLease,
  withLock,
} from 'lockweave';
import { useRedis, uniqueId } from '../helpers/redis-fixture';
import { sleep } from '../helpers/time';

const fixture = useRedis(test);

test.serial("nested lock() sections in one holder's body take turns, as nested withLock() calls do", async (t) => {
  const key = uniqueId('siblings');
  const request = { businessFlag: 'nestedLease', key, waitTime: 5_000, retries: 2 };
  let inside = 0;
  let most = 0;
  const order: string[] = [];
  /** A section between `lock()` and `release()` of what `take` locks: the key alone, or it among others. */
  const section = async (name: string, take: () => Promise<{ release(): Promise<void> }>) => {
    const lease = await take();
    try {
      most = Math.max(most, ++inside);
      order.push(`${name} in`);
      await sleep(80);
      order.push(`${name} out`);
    } finally {
      inside--;
      await lease.release();
    }
  };
  const alone = () => lock(request);
  const withOthers = () => lock({ businessFlag: 'nestedLease', keys: [key, `${key}-other`], waitTime: 5_000 });
  await withLock(request, async () => {
    await Promise.all([section('a', alone), section('b', alone), section('keys', withOthers)]);
  });
  t.is(most, 1, 'never two sections inside the lock at once');
  t.deepEqual(order, ['a in', 'a out', 'b in', 'b out', 'keys in', 'keys out']);
  t.deepEqual(await fixture.redis.keys(`LOCK_nestedLease_${key}*`), [], 'all released');
});

test.serial(
  'a nested lock() the body did not await keeps the outer release waiting until its own release',
  async (t) => {
    const key = uniqueId('detached');
    const redisKey = `LOCK_nestedLease_${key}`;
    const request = { businessFlag: 'nestedLease', key, lockTime: 3_000, waitTime: 5_000, retries: 3 };
    const seen: string[] = [];
    let helper: Promise<void> | undefined;
    let outerToken = '';
    const outer = withLock(request, async (lease) => {
      outerToken = (lease as Lease).token;
      helper = (async () => {
        const nested = await lock(request);
        try {
          await sleep(400);
          seen.push(`helper holds ${await fixture.redis.get(redisKey)}`);
        } finally {
          await nested.release();
        }
      })();
    });
    await sleep(20);
    // Another chain (another request of this process) waits for the key meanwhile.
    const other = withLock(request, async () => {
      seen.push('other in');
    });
    await outer.then(() => seen.push('outer returned'));
    await Promise.all([helper, other]);
    // The helper ran holding the outer grant; the outer call returned, and the other chain entered, after it.
    t.is(seen[0], `helper holds ${outerToken}`);
    t.deepEqual(seen.slice(1).sort(), ['other in', 'outer returned']);
    t.is(await fixture.redis.exists(redisKey), 0);
  },
);

test.serial('a nested lock() whose turn comes once the outer lease is gone fails with LockLostError', async (t) => {
  const key = uniqueId('late-turn');
  // No watchdog anywhere: the outer lease of 400 ms runs out while the first section holds its turn.
  const request = { businessFlag: 'nestedLease', key, lockTime: 400, watchdog: false, waitTime: 3_000, retries: 2 };
  let secondRan = false;
  await withLock(request, async () => {
    const first = (async () => {
      const lease = await lock(request);
      await sleep(900);
      await lease.release();
    })();
    const second = lock(request).then(async (lease) => {
      secondRan = true;
      await lease.release();
    });
    await t.throwsAsync(second, { instanceOf: LockLostError, message: /no longer held when its turn came/ });
    await first;
  });
  t.false(secondRan);
});

test.serial('a released nested lease runs nothing, and its release lets the next sibling in at once', async (t) => {
  const key = uniqueId('released');
  const request = { businessFlag: 'nestedLease', key, waitTime: 200, retries: 0 };
  await withLock(request, async () => {
    const first = await lock(request);
    await first.release();
    await t.throwsAsync(
      first.run(async () => t.fail('ran')),
      { instanceOf: LockLostError },
    );
    // retries=0: no wait at the gate, so this enters only because the first turn was given back.
    const second = await lock(request);
    await second.release();
  });
  t.pass();
});

test.serial(
  'run() with a body that is not async settles, for a nested, a top-level and a multi-key lease',
  async (t) => {
    const key = uniqueId('sync-body');
    const request = { businessFlag: 'nestedLease', key, lockTime: 1_500, waitTime: 300, retries: 3 };
    const sync = (): number => 42;
    const throws = (): never => {
      throw new Error('sync failure in body');
    };
    const startedAt = Date.now();
    await withLock(request, async () => {
      const inner = await lock(request);
      try {
        await t.throwsAsync(inner.run(throws), { message: 'sync failure in body' });
        t.is(await inner.run(sync), 42);
      } finally {
        await inner.release();
      }
      // A nested withLock() and a nested multi-key lease, with a body that throws before it returns.
      await t.throwsAsync(
        withLock(request, () => throws()),
        { message: 'sync failure in body' },
      );
      const each = (await lock({ businessFlag: 'nestedLease', keys: [key, `${key}-b`] })) as MultiLease;
      try {
        await t.throwsAsync(each.run(throws), { message: 'sync failure in body' });
        t.is(await each.run(sync), 42);
      } finally {
        await each.release();
      }
    });
    t.true(Date.now() - startedAt < 5_000, 'the outer call returned: no turn was left behind');
    t.is(await fixture.redis.exists(`LOCK_nestedLease_${key}`), 0, 'released');

    const top = await lock(request);
    try {
      const ran = top.run(throws);
      t.true(ran instanceof Promise, 'a rejection, not a throw');
      await t.throwsAsync(ran, { message: 'sync failure in body' });
      t.is(await top.run(sync), 42);
    } finally {
      await top.release();
    }
    // The deprecated MethodLock.run too.
    const method = defineLock({ businessFlag: 'nestedLeaseRun', waitTime: 300 });
    await t.throwsAsync(method.run('A', throws as () => Promise<never>), { message: 'sync failure in body' });
    t.is(await method.run('A', sync as unknown as () => Promise<number>), 42);
    t.deepEqual(await fixture.redis.keys('LOCK_nestedLease*'), []);
  },
);

test.serial(
  'a nested call that times out at the gate with an onFail class whose constructor throws rejects with that throw',
  async (t) => {
    class Refuses {
      constructor(message: string) {
        throw new Error(`Refuses: ${message}`);
      }
    }
    const key = uniqueId('onfail-throws');
    const request = { businessFlag: 'nestedLease', key };
    const sibling = { ...request, waitTime: 100, retries: 2, onFail: Refuses };
    await withLock(request, async () => {
      const first = withLock(sibling, () => sleep(800));
      const second = withLock(sibling, async () => t.fail('ran beside its sibling'));
      await t.throwsAsync(second, { message: /^Refuses: could not acquire LOCK_nestedLease_\S+ after 1 attempt/ });
      await first;
    });
    t.is(await fixture.redis.exists(`LOCK_nestedLease_${key}`), 0);
  },
);

test.serial(
  'a nested call asking for replicas the outer grant did not have is refused; its body does not run',
  async (t) => {
    const key = uniqueId('replicas');
    const request = { businessFlag: 'nestedLease', key };
    await withLock(request, async () => {
      const error = await t.throwsAsync(
        withLock({ ...request, replicas: 1 }, async () => t.fail('ran under a grant no replica acknowledged')),
        { instanceOf: LockAcquireError },
      );
      t.regex(error!.message, /asks for replicas=1, but is nested in a hold of \S+ that 0 replica\(s\) acknowledged/);
      await t.throwsAsync(lock({ ...request, replicas: 1 }), { instanceOf: LockAcquireError });
    });
  },
);

test.serial(
  'a nested call asking for the key kept after its body is refused unless the outer grant keeps it as long',
  async (t) => {
    const key = uniqueId('kept');
    const request = { businessFlag: 'nestedLease', key, lockTime: 2_000, waitTime: 300 };
    await withLock(request, async () => {
      await t.throwsAsync(
        withLock({ ...request, autoUnlock: false }, async () => t.fail('ran')),
        { instanceOf: LockAcquireError, message: /autoUnlock=false.*whose release keeps it no longer/ },
      );
      await t.throwsAsync(
        withLock({ ...request, minHold: 1_000 }, async () => t.fail('ran')),
        { instanceOf: LockAcquireError, message: /minHold=1000ms.*whose release keeps it no longer/ },
      );
    });
    await withLock({ ...request, minHold: 500 }, async () => {
      await t.throwsAsync(
        withLock({ ...request, minHold: 1_000 }, async () => t.fail('ran')),
        {
          message: /whose release keeps it only 500 ms from its start/,
        },
      );
      t.is(await withLock({ ...request, minHold: 500 }, async () => 'ran'), 'ran');
    });
    // An outer grant kept for its whole lease keeps it at least as long as any nested call asks.
    await withLock({ ...request, autoUnlock: false }, async () => {
      t.is(await withLock({ ...request, minHold: 1_000 }, async () => 'ran'), 'ran');
      t.is(await withLock({ ...request, autoUnlock: false }, async () => 'ran'), 'ran');
    });
    await fixture.redis.del(`LOCK_nestedLease_${key}`);
  },
);

test.serial('a nested call asking for no more replicas than the outer grant had runs', async (t) => {
  // One redis-server has no replica to acknowledge anything; the in-process store meets any count.
  configure({ store: new MemoryLockStore() });
  try {
    const request = { businessFlag: 'nestedLease', key: uniqueId('replicas-met') };
    const inner = await withLock({ ...request, replicas: 2 }, () =>
      withLock({ ...request, replicas: 1 }, async () => 'ran'),
    );
    t.is(inner, 'ran');
  } finally {
    configure({ redis: fixture.server.url });
  }
});
