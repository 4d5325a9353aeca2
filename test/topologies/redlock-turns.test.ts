// Turns on Redlock (store/redlock-store.ts, Turns): a process whose turn at a key ended while
// another process listened for it makes no attempt for a moment, so that the other's waiter, woken
// by the notice, comes to the gate first; a process whose turn did not end tries at once (it beats
// the other's later attempt); a process alone on the key takes it again; and a listener that never
// tries keeps nobody from the key. (That the lone process is not held back at all is a matter of
// milliseconds, which a test does not time: the bench's S2 on Redlock reads it.) Two
// RedlockStores over their own connections stand for two processes: the servers count each one's
// subscriptions apart.
import test from 'ava';
import { Redis } from 'ioredis';
import { RedisLockStore, RedlockStore, type PlaceInLine } from 'lockweave';
import { usePrimaries } from '../helpers/redis-primaries';
import { uniqueId } from '../helpers/redis-fixture';

const fixture = usePrimaries(test, 3);

const stores: RedlockStore[] = [];
test.after.always(() => Promise.all(stores.map((store) => store.close())));

/** A process's view of the 3 servers: its own connections (and, once it listens, its own subscribers). */
function processStore(): RedlockStore {
  const nodes = fixture.primaries.urls.map((url, index) => ({
    store: new RedisLockStore(new Redis(url), { ownsClient: true }),
    address: `server ${index}`,
  }));
  const store = new RedlockStore(nodes);
  stores.push(store);
  return store;
}

const waiter = (token: string): PlaceInLine => ({ token, leaseMs: 10_000, placeLastsMs: 10_000, place: undefined });

const ignore = () => undefined;

/** Two processes listening for a fresh key, the first holding it. */
async function twoListening(label: string): Promise<{ key: string; a: RedlockStore; b: RedlockStore }> {
  const key = `LOCK_${uniqueId(label)}`;
  const a = processStore();
  const b = processStore();
  await Promise.all([a.listen(key, ignore), b.listen(key, ignore)]);
  if (!(await a.tryAcquire(key, 'a-holder', 10_000))) throw new Error('the fresh key was held');
  return { key, a, b };
}

test.serial(
  "a turn that ends while another process listens: the other's waiter, a moment later, gets the key",
  async (t) => {
    const { key, a, b } = await twoListening('ended');
    const next = waiter('a-next');
    t.is(await a.release(key, 'a-holder', { successor: next, goesAhead: false }), 'freed');
    // This process's successor tries first, the other's second: the other's reaches the gate first.
    const tries = [a.tryAcquireInTurn(key, next), b.tryAcquireInTurn(key, waiter('b-waiter'))];
    t.deepEqual(await Promise.all(tries), [false, true]);
    t.is(await b.release(key, 'b-waiter'), 'freed');
  },
);

test.serial('a release that does not end the turn, or names nobody, keeps the process trying at once', async (t) => {
  const { key, a, b } = await twoListening('not-ended');
  // The successor may go ahead: the turn goes on.
  t.is(await a.release(key, 'a-holder', { successor: waiter('a-next'), goesAhead: true }), 'freed');
  t.deepEqual(
    await Promise.all([a.tryAcquireInTurn(key, waiter('a-next')), b.tryAcquireInTurn(key, waiter('b-waiter'))]),
    [true, false],
  );
  // Nobody of this process named: nobody here waits, and nothing is held back.
  t.is(await a.release(key, 'a-next'), 'freed');
  t.deepEqual(
    await Promise.all([a.tryAcquireInTurn(key, waiter('a-late')), b.tryAcquireInTurn(key, waiter('b-late'))]),
    [true, false],
  );
  t.is(await a.release(key, 'a-late'), 'freed');
});

test.serial('alone on the key, a process whose turn ended takes it again', async (t) => {
  const key = `LOCK_${uniqueId('alone')}`;
  const a = processStore();
  await a.listen(key, ignore);
  t.true(await a.tryAcquire(key, 'a-holder', 10_000));
  const next = waiter('a-next');
  t.is(await a.release(key, 'a-holder', { successor: next, goesAhead: false }), 'freed');
  t.true(await a.tryAcquireInTurn(key, next));
  t.is(await a.release(key, 'a-next'), 'freed');
});

test.serial('a process that listens and never tries keeps nobody from the key: the yield ends', async (t) => {
  const { key, a } = await twoListening('lingering');
  const next = waiter('a-next');
  t.is(await a.release(key, 'a-holder', { successor: next, goesAhead: false }), 'freed');
  t.true(await a.tryAcquireInTurn(key, next), 'the key is this process’s again');
  t.is(await a.release(key, 'a-next'), 'freed');
});
