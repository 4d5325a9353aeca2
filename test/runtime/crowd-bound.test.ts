// A caller's wait bound holds whatever the crowd: it gives up at its deadline — retries × waitTime,
// plus one wait for its last attempt's answer — even when that answer is still queued (behind
// thousands of other waiters' scripts on one Redis, or never coming at all). It used to wait for
// the answer: 10,000 waiters with waitTime 300 ms and 1 retry got their LockAcquireError after
// 3.1–3.2 s instead of ~0.6 s.
import test from 'ava';
import { close, configure, defineLock, LockAcquireError, MemoryLockStore, type PlaceInLine } from 'lockweave';
import { useRedis } from '../helpers/redis-fixture';

const fixture = useRedis(test);

/** retries × waitTime + one wait (300 ms) for the last answer. */
const DEADLINE_MS = 600;

class QueuedStore extends MemoryLockStore {
  /** An attempt in line whose answer never comes back (queued for good). */
  override tryAcquireInTurn(_key: string, _waiter: PlaceInLine): Promise<boolean> {
    return new Promise(() => undefined);
  }
}

test.serial('a caller whose attempt is never answered gives up at its deadline', async (t) => {
  configure({ store: new QueuedStore() });
  t.teardown(() => configure({ redis: fixture.server.url }));
  const lock = defineLock({ businessFlag: 'queued', retries: 1, waitTime: 300 });
  const holder = await lock.acquire('A');
  const startedAt = Date.now();
  // The bound's timer is cleared once the race is over: left running, it kept the worker alive
  // 10 s past the file's last test.
  let bound: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    lock.acquire('A').then(
      () => 'acquired',
      (error: unknown) => error,
    ),
    new Promise((resolve) => {
      bound = setTimeout(resolve, 10_000, 'still waiting after 10 s');
    }),
  ]);
  clearTimeout(bound);
  const tookMs = Date.now() - startedAt;
  t.true(outcome instanceof LockAcquireError, String(outcome));
  t.true(tookMs < DEADLINE_MS + 2_000, `gave up after ${tookMs} ms (deadline ${DEADLINE_MS} ms)`);
  await holder!.release();
});

test.serial(
  'thousands of waiters on one key each get LockAcquireError within their own bound, not one that grows with the crowd',
  async (t) => {
    const WAITERS = 3_000;
    /** A loaded 2-core machine: a bound, not an expectation (the crowd's own work runs in this process). */
    const SLACK_MS = 5_000;
    const lock = defineLock({ businessFlag: 'crowd', retries: 1, waitTime: 300, lockTime: 60_000 });
    const holder = await lock.acquire('A');
    const startedAt = Date.now();
    const settledAfter: number[] = [];
    const errors = await Promise.all(
      Array.from({ length: WAITERS }, () =>
        lock.acquire('A').then(
          () => 'acquired',
          (error: unknown) => {
            settledAfter.push(Date.now() - startedAt);
            return error;
          },
        ),
      ),
    );
    settledAfter.sort((a, b) => a - b);
    t.log(
      `${WAITERS} waiters: LockAcquireError after ${settledAfter[0]}–${settledAfter[WAITERS - 1]} ms (median ${settledAfter[WAITERS >> 1]}; deadline ${DEADLINE_MS} ms)`,
    );
    t.true(errors.every((error) => error instanceof LockAcquireError));
    t.true(
      settledAfter[WAITERS - 1]! < DEADLINE_MS + SLACK_MS,
      `the last gave up after ${settledAfter[WAITERS - 1]} ms`,
    );
    await holder!.release();
    await close();
  },
);
