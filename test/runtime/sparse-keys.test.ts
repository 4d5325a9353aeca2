// A hole in a sparse array is an undefined value. Given as a composite key (`key: [, 'a']`,
// `new Array(1)`) or as keys (`keys: [, 'a']`), it is refused with LockKeyError as `[undefined, 'a']`
// is — never skipped into another key (`["a"]`, `[]`), nor a key of its own named `undefined` or "".
import test from 'ava';
import { defineLock, inspect, lock, LockKeyError, withLock } from 'lockweave';
import { useRedis } from '../helpers/redis-fixture';

const fixture = useRedis(test);

// biome-ignore lint/suspicious/noSparseArray: the holes are the point
const HOLE_FIRST = [, 'a'];
const HOLE_LAST = ['a', 'b'];
HOLE_LAST.length = 3;
const HOLES: Record<string, unknown[]> = {
  'new Array(1)': new Array(1),
  'new Array(2)': new Array(2),
  '[, "a"]': HOLE_FIRST,
  '["a", "b", <hole>]': HOLE_LAST,
};

for (const [name, holes] of Object.entries(HOLES)) {
  test.serial(`${name} as a composite key or as keys is refused, and nothing is locked`, async (t) => {
    const options = { businessFlag: 'sparse', lockTime: 60_000, retries: 0 };
    const body = async () => t.fail('the body ran');
    await t.throwsAsync(withLock({ ...options, key: holes }, body), { instanceOf: LockKeyError, message: /undefined/ });
    await t.throwsAsync(withLock({ ...options, keys: holes }, body), {
      instanceOf: LockKeyError,
      message: /undefined/,
    });
    await t.throwsAsync(lock({ ...options, key: holes }), { instanceOf: LockKeyError });
    await t.throwsAsync(lock({ ...options, keys: holes }), { instanceOf: LockKeyError });
    await t.throwsAsync(inspect({ businessFlag: 'sparse', key: holes }), { instanceOf: LockKeyError });
    const method = defineLock({ businessFlag: 'sparse', retries: 0 });
    await t.throwsAsync(method.acquireComposite(holes), { instanceOf: LockKeyError });
    await t.throwsAsync(method.acquireEach(holes), { instanceOf: LockKeyError });
    t.deepEqual(await fixture.redis.keys('*'), [], 'no key was written');
  });
}

test.serial('a dense list with the same values still locks', async (t) => {
  const keys = await withLock({ businessFlag: 'sparse', key: ['x', 'a'] }, async (lease) => lease.key);
  t.is(keys, 'LOCK_sparse_["x","a"]');
  const each = await withLock({ businessFlag: 'sparse', keys: ['x', 'a'] }, async (lease) => lease.keys);
  t.deepEqual(each, ['LOCK_sparse_a', 'LOCK_sparse_x']);
});
