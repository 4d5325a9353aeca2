// No key value reaches a key lockweave keeps for itself: a key's line of waiters, their lapses and
// its fencing counter. A value that named one (the audit's `{t1}o7:lockweave:fence`) made a fenced
// lock fail for good, gave its waiters WRONGTYPE, and stranded the key when its release failed.
// Run on one Redis (own-keys.test.ts) and on a Cluster (test/topologies/cluster-own-keys.test.ts).
import type { TestFn } from 'ava';
import type { Redis } from 'ioredis';
import { defineLock, type Lease } from 'lockweave';
import { uniqueId } from '../helpers/redis-fixture';
import { until } from '../helpers/time';
import { claimMarkOf, fenceCounterOf, waitingLineOf } from '../../runtime/store/waiting-line';

/** What a value appended to `base` would need, to name one of the key's own keys, in either naming. */
const OWN_NAME_SUFFIXES = ['fence', 'line', 'lapses', 'leases', 'claim'].flatMap((name) => [
  `:lockweave:${name}`,
  `:{lockweave}:${name}`,
]);

export function ownKeysCases(test: TestFn, look: () => Pick<Redis, 'zcard' | 'exists' | 'get'>): void {
  for (const prefix of ['LOCK_', '{app}LOCK_']) {
    for (const base of ['{t1}o7', 'o7']) {
      test(`prefix ${prefix}, value ${base}: values naming the key's own keys leave its locks working`, async (t) => {
        const L = defineLock({ businessFlag: uniqueId('own'), prefix, fencing: true, retries: 20, waitTime: 2_000 });
        // The attack: every value that would name one of the key's own keys, held the whole test.
        const squatters = await Promise.all(
          OWN_NAME_SUFFIXES.map(async (suffix) => (await L.acquire(base + suffix)) as Lease),
        );
        const key = L.keyFor(base);
        const { line, lapses, leases } = waitingLineOf(key);
        const own = [line, lapses, leases, claimMarkOf(key), fenceCounterOf(key)];
        for (const squatter of squatters)
          t.false(own.includes(squatter.key), `${squatter.key} is one of ${key}'s own keys`);

        // A fenced grant, a waiter handed the key by the release script, and a release that frees it.
        const first = (await L.acquire(base)) as Lease;
        t.is(typeof first.fence, 'number');
        const waiting = L.acquire(base) as Promise<Lease>;
        await until(async () => (await look().zcard(waitingLineOf(key).line)) === 1, 5_000);
        await first.release();
        const second = await waiting;
        t.true(second.fence! > first.fence!);
        await second.release();
        t.is(await look().exists(key), 0, 'the release freed the key: not stranded for its lease');

        for (const squatter of squatters) {
          t.is(await look().get(squatter.key), squatter.token, 'the other locks were not touched');
          await squatter.release();
        }
      });
    }
  }
}
