// Node fires a timer set past 2^31 − 1 ms (about 24.8 days) at once. Every timer of the runtime is
// set in one place (base/timer-delay.ts), and a lease or wait bound no timer can keep is refused
// up front instead of ending at once: a 30-day lease let a second caller in beside the first, and a
// nested call's 3e9 ms bound gave up within milliseconds.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { configure, defineLock, lock, MemoryLockStore, withLock } from 'lockweave';

const DAY_MS = 24 * 60 * 60 * 1000;
const RUNTIME = path.join(__dirname, '..', '..', 'runtime');

test('every timer in the runtime is set through setTimer', (t) => {
  const files = (fs.readdirSync(RUNTIME, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  t.true(files.length > 20);
  for (const file of files) {
    if (file === path.join('base', 'timer-delay.ts')) continue;
    const text = fs.readFileSync(path.join(RUNTIME, file), 'utf8');
    t.notRegex(text, /\bset(Timeout|Interval)\(/, file);
  }
});

test('a 30-day lockTime is refused up front, by defineLock, withLock and lock', async (t) => {
  configure({ store: new MemoryLockStore() });
  t.throws(() => defineLock({ businessFlag: 'long', lockTime: 30 * DAY_MS }), {
    instanceOf: TypeError,
    message: /lockTime .* 24\.8 days/,
  });
  let ran = false;
  await t.throwsAsync(
    withLock({ businessFlag: 'long', key: 'k', lockTime: 30 * DAY_MS }, () => (ran = true)),
    { instanceOf: TypeError },
  );
  await t.throwsAsync(lock({ businessFlag: 'long', key: 'k', waitTime: 30 * DAY_MS }), { instanceOf: TypeError });
  t.false(ran);
  t.notThrows(() => defineLock({ businessFlag: 'long', lockTime: 24 * DAY_MS }));
});

test('MemoryLockStore refuses a lease it cannot keep rather than letting it end at once', async (t) => {
  const store = new MemoryLockStore();
  await t.throwsAsync(store.tryAcquire('k', 'first', 30 * DAY_MS), {
    instanceOf: RangeError,
    message: /a lease of 2592000000 ms/,
  });
  t.is(store.holder('k'), undefined, 'nothing was held');
  t.true(await store.tryAcquire('k', 'first', 2 ** 31 - 1));
  await new Promise((resolve) => setImmediate(resolve));
  t.false(await store.tryAcquire('k', 'second', 1_000), 'a second caller stays out while the first holds the key');
  t.is(store.holder('k'), 'first');
  await store.close();
});

test('a wait bound (retries × waitTime) past 24.8 days is refused; one within it is kept by a nested sibling', async (t) => {
  configure({ store: new MemoryLockStore() });
  t.throws(() => defineLock({ businessFlag: 'bound', retries: 3, waitTime: 1_000_000_000 }), {
    instanceOf: TypeError,
    message: /retries × waitTime/,
  });
  const L = defineLock({ businessFlag: 'bound', retries: 2, waitTime: 1_000_000_000 });
  const order: string[] = [];
  let releaseFirst!: () => void;
  const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
  await L.run('k', async () => {
    const first = L.run('k', async () => {
      order.push('first in');
      await firstHolds;
      order.push('first out');
    });
    const second = L.run('k', async () => void order.push('second in'));
    // The second waits for its turn (its bound is 2e9 ms); give it many turns of the loop to give up early.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    t.deepEqual(order, ['first in']);
    releaseFirst();
    await Promise.all([first, second]);
  });
  t.deepEqual(order, ['first in', 'first out', 'second in']);
});
