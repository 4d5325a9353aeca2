// The in-process store keeps the same promises as the Redis one.
import test from 'ava';
import { configure, MemoryLockStore, type LockEvent } from 'lockweave';
import { lockSemantics } from './lock-semantics';

const events: LockEvent[] = [];
const store = new MemoryLockStore();
configure({ store, logger: (event) => events.push(event) });

lockSemantics(test, () => ({
  holder: async (key) => store.holder(key),
  pttl: async (key) => store.pttl(key),
  events,
}));

test('as the release script: a pass binds a waiter that names its process, came a moment ago and is heard', async (t) => {
  // On a clock of the test's that stands still: every place is a moment old at the release, however
  // loaded the machine (a pass binds within BINDS_WITHIN_MS of its waiter's place).
  const clock = Date.now();
  const memory = new MemoryLockStore({ now: () => clock });
  const heard: (string | undefined)[] = [];
  const tokenOf = (tag: string) => `${tag}-0000-8000-8000-000000000001`;
  const waiter = (token: string) => ({ token, leaseMs: 9_000, placeLastsMs: 10_000, place: undefined });
  t.true(await memory.tryAcquire('k', 'holder', 10_000));
  t.false(await memory.tryAcquireInTurn('k', waiter(tokenOf('aaaaaaaa'))));
  t.false(await memory.tryAcquireInTurn('k', waiter('3f2a1c9e-5b7d-4e11-9a3c-2d4e6f8a0b1c')));
  // Nobody listens: a claim, as for a waiter whose process died.
  t.is(await memory.release('k', 'holder'), 'passed');
  t.is(memory.claimOf('k'), tokenOf('aaaaaaaa'));
  t.true(await memory.tryAcquireInTurn('k', waiter(tokenOf('aaaaaaaa'))));
  t.false(await memory.tryAcquireInTurn('k', waiter(tokenOf('bbbbbbbb'))));
  await memory.listen('k', (_key, passedTo) => heard.push(passedTo));
  // The older token, first in line, names no process: a claim.
  t.is(await memory.release('k', tokenOf('aaaaaaaa')), 'passed');
  t.deepEqual(heard, ['3f2a1c9e-5b7d-4e11-9a3c-2d4e6f8a0b1c']);
  t.true(await memory.tryAcquireInTurn('k', waiter('3f2a1c9e-5b7d-4e11-9a3c-2d4e6f8a0b1c')), 'its claim confirmed');
  t.is(await memory.release('k', '3f2a1c9e-5b7d-4e11-9a3c-2d4e6f8a0b1c'), 'passed');
  t.deepEqual(heard.slice(1), [`!${tokenOf('bbbbbbbb')}`], 'bound');
  t.is(memory.claimOf('k'), undefined, 'no mark');
  t.is(memory.holder('k'), tokenOf('bbbbbbbb'));
  t.true(memory.pttl('k') > 8_000, 'its own lease');
  await memory.close();
});

test('as the release script: a free key announced says how many heard it (here, its one listener or none)', async (t) => {
  const memory = new MemoryLockStore();
  const heardBy: number[] = [];
  const announced = { announceFree: true, onAnnounced: (count: number) => heardBy.push(count) };
  t.true(await memory.tryAcquire('k', 'alone', 10_000));
  t.is(await memory.release('k', 'alone', announced), 'freed');
  await memory.listen('k', () => undefined);
  t.true(await memory.tryAcquire('k', 'heard', 10_000));
  t.is(await memory.release('k', 'heard', announced), 'freed');
  t.true(await memory.tryAcquire('k', 'quiet', 10_000));
  t.is(await memory.release('k', 'quiet'), 'freed', 'not announced: not told');
  t.deepEqual(heardBy, [0, 1]);
  await memory.close();
});
