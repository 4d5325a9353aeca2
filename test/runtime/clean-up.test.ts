// The clean-up retry (lock/clean-up.ts) that sends a release or a give-up's leave again: sent again
// at once when the connection is back, else after a backoff; never past the latest the key may last.
import test from 'ava';
import { sendAgain } from '../../runtime/lock/clean-up';
import { MemoryLockStore } from '../../runtime/store/memory-store';
import type { LockStore } from '../../runtime/store/lock-store';

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// The retry's timers are unref'd (they never keep a process up): the test keeps this one up meanwhile.
let keepAlive: NodeJS.Timeout;
test.before(() => {
  keepAlive = setInterval(() => undefined, 1_000);
});
test.after.always(() => clearInterval(keepAlive));

/** A store whose connection comes back when the test says so. */
function reconnectingStore(): { store: LockStore; reconnect(): void; waiting(): number } {
  const listeners = new Set<() => void>();
  const store: LockStore = Object.assign(new MemoryLockStore(), {
    onceReconnected(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
  return { store, reconnect: () => [...listeners].forEach((listener) => listener()), waiting: () => listeners.size };
}

test('a clean-up that keeps failing is given up once the key may last no longer', async (t) => {
  const until = Date.now() + 500;
  let sends = 0;
  const done = await new Promise<string | undefined>((resolve) => {
    sendAgain<string>({
      store: new MemoryLockStore(),
      until: () => until,
      send: () => {
        sends++;
        return Promise.reject(new Error('cut'));
      },
      done: resolve,
    });
  });
  t.is(done, undefined);
  // 100, then 200 ms on (fewer on a late timer): the next wait, 400 ms, would end past the key's end.
  t.true(sends >= 1 && sends <= 2, `${sends} sends`);
});

test('a clean-up is sent again the moment the connection is back, not after its backoff', async (t) => {
  const { store, reconnect, waiting } = reconnectingStore();
  const sentAt: number[] = [];
  const answered = new Promise<string | undefined>((resolve) => {
    sendAgain<string>({
      store,
      until: () => Date.now() + 60_000,
      send: () => {
        sentAt.push(Date.now());
        return sentAt.length === 1 ? Promise.reject(new Error('cut')) : Promise.resolve('freed');
      },
      done: resolve,
    });
  });
  // The first send, by its 100 ms backoff, fails; then the second waits for the connection.
  const boundAt = Date.now() + 5_000;
  while ((sentAt.length < 1 || waiting() === 0) && Date.now() < boundAt) await delay(5);
  t.is(sentAt.length, 1);
  reconnect();
  t.is(sentAt.length, 2, 'sent on reconnect, not after the 200 ms backoff');
  t.is(await answered, 'freed');
});

test('the bound is read at each send: a bound that grows keeps the clean-up going', async (t) => {
  let until = Date.now() + 150;
  let sends = 0;
  const done = await new Promise<string | undefined>((resolve) => {
    sendAgain<string>({
      store: new MemoryLockStore(),
      until: () => until,
      send: () => {
        sends++;
        if (sends === 1) until = Date.now() + 5_000; // a renewal not answered: the key may last longer
        return sends < 3 ? Promise.reject(new Error('cut')) : Promise.resolve('freed');
      },
      done: resolve,
    });
  });
  t.is(done, 'freed');
  t.is(sends, 3);
});
