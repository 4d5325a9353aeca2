// Nested calls never outlive the grant they run under. A body that starts nested calls on its own
// key and does not await them (a fire-and-forget audit call, a microtask queued as it returns)
// keeps the key until they end: the release waits for them, so none runs beside the key's next
// holder. A nested call whose turn comes once the outer lease is gone, and a lease's run() after
// its release, run nothing. A nested call that asks for fencing inside a grant without it is
// refused. A waiter that keeps its key after its body (autoUnlock=false) gets a grant of its own
// length, never the rest of a holder's.
import test from 'ava';
import { FencingUnavailableError, type Lease, lock, LockLostError, withLock } from 'lockweave';
import { useRedis, uniqueId } from '../helpers/redis-fixture';
import { sleep } from '../helpers/time';

const fixture = useRedis(test);

test.serial(
  'nested calls a body started and did not await end before its release: the key is held throughout',
  async (t) => {
    const key = uniqueId('unawaited');
    const request = { businessFlag: 'nested', key, lockTime: 3_000 };
    const seen: Array<{ call: string; token: string | null }> = [];
    const nested = (call: string) =>
      withLock(request, async () => {
        await sleep(150);
        seen.push({ call, token: await fixture.redis.get(`LOCK_nested_${key}`) });
      });
    let outerToken = '';
    const calls: Promise<unknown>[] = [];
    await withLock(request, async (lease) => {
      outerToken = (lease as Lease).token;
      calls.push(nested('first'), nested('second')); // siblings: they take turns, after the body returns
      queueMicrotask(() => calls.push(nested('microtask')));
    });
    // The outer call resolves only once its nested calls have ended, each under the outer grant.
    t.deepEqual(seen.map(({ call }) => call).sort(), ['first', 'microtask', 'second']);
    for (const { call, token } of seen) t.is(token, outerToken, call);
    await Promise.all(calls);
    t.is(await fixture.redis.exists(`LOCK_nested_${key}`), 0, 'released after them');
  },
);

test.serial('a call nested in a nested call that ended first still gets its turn', async (t) => {
  const key = uniqueId('orphan');
  const request = { businessFlag: 'nested', key, waitTime: 200, retries: 2 };
  let grandchild: Promise<unknown> | undefined;
  await withLock(request, async () => {
    await withLock(request, async () => {
      grandchild = withLock(request, async () => 'ran'); // not awaited: its parent ends first
      await sleep(20);
    });
  });
  t.is(await grandchild, 'ran');
});

test.serial("a lease's run() after its release runs nothing", async (t) => {
  const lease = await lock({ businessFlag: 'nested', key: uniqueId('run-after') });
  await lease.release();
  let ran = false;
  await t.throwsAsync(
    lease.run(async () => {
      ran = true;
    }),
    { instanceOf: LockLostError },
  );
  t.false(ran);
});

test.serial('a nested call that asks for fencing inside a grant taken without it is refused', async (t) => {
  const key = uniqueId('fence');
  await withLock({ businessFlag: 'nested', key }, async () => {
    await t.throwsAsync(
      withLock({ businessFlag: 'nested', key, fencing: true }, async () => 'ran'),
      {
        instanceOf: FencingUnavailableError,
        message: /nested in a hold of LOCK_nested_\S+ taken without it/,
      },
    );
  });
  // Fenced outside, fenced inside: the nested call gets the outer grant's number.
  await withLock({ businessFlag: 'nested', key, fencing: true }, async (outer) => {
    const inner = await withLock({ businessFlag: 'nested', key, fencing: true }, async (lease) => lease.fence);
    t.is(inner, outer.fence);
  });
});

test.serial(
  'a waiter with autoUnlock=false keeps the key for its own lockTime, not what the holder had left',
  async (t) => {
    const key = uniqueId('kept');
    const redisKey = `LOCK_nested_${key}`;
    const holder = withLock({ businessFlag: 'nested', key, lockTime: 4_000 }, () => sleep(1_500));
    await sleep(50);
    const pttl = await withLock(
      { businessFlag: 'nested', key, lockTime: 4_000, autoUnlock: false },
      async () => undefined,
    ).then(() => fixture.redis.pttl(redisKey));
    await holder;
    t.true(pttl > 3_000, `the key lasts ${pttl} ms after the body`);
    await fixture.redis.del(redisKey);
  },
);

test.serial(
  'a nested call that asks for the watchdog keeps a lease taken without it renewed while it runs',
  async (t) => {
    const key = uniqueId('watchdog');
    const redisKey = `LOCK_nested_${key}`;
    await withLock({ businessFlag: 'nested', key, lockTime: 1_000, watchdog: false }, async (outer) => {
      const token = (outer as Lease).token;
      // The nested call (watchdog on, the default) outlasts the outer lease's 1 s twice over.
      const seen = await withLock({ businessFlag: 'nested', key }, async (lease) => {
        await sleep(2_500);
        return { token: await fixture.redis.get(redisKey), held: lease.held };
      });
      t.deepEqual(seen, { token, held: true });
    });
    t.is(await fixture.redis.exists(redisKey), 0, 'released');
  },
);
