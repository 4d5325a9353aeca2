// The key a call locks: `<prefix><businessFlag>_<value>`, and refusals instead of wrong locks.
import test from 'ava';
import { configure, defineLock, LockKeyError, MAX_KEY_LENGTH, MemoryLockStore } from 'lockweave';

configure({ store: new MemoryLockStore() });
const payOrder = defineLock({ businessFlag: 'payOrder' });

test('a value key is <prefix><businessFlag>_<value>, as in the seed', (t) => {
  t.is(payOrder.keyFor('Test001'), 'LOCK_payOrder_Test001');
  t.is(payOrder.keyFor(42), 'LOCK_payOrder_42');
  t.is(payOrder.keyFor(12345678901234567890n), 'LOCK_payOrder_12345678901234567890');
  t.is(payOrder.keyFor(true), 'LOCK_payOrder_true');
});

test('the tag prefix replaces the default one', (t) => {
  t.is(defineLock({ businessFlag: 'payOrder', prefix: 'shop:' }).keyFor('A1'), 'shop:payOrder_A1');
});

test('keys keep newlines and unusual text verbatim', (t) => {
  t.is(payOrder.keyFor('a\nb\u0000c'), 'LOCK_payOrder_a\nb\u0000c');
});

for (const [label, value] of [
  ['null', null],
  ['undefined', undefined],
  ['an empty string', ''],
  ['NaN', Number.NaN],
  ['an object', { orderNo: 'x' }],
] as const) {
  test(`a key value that is ${label} rejects with LockKeyError and locks nothing`, async (t) => {
    const error = await t.throwsAsync(payOrder.acquire(value), { instanceOf: LockKeyError });
    t.is(error!.name, 'LockKeyError');
    t.true(error!.key.startsWith('LOCK_payOrder_'));
  });
}

test('keys over MAX_KEY_LENGTH are refused; a key at the limit is accepted', (t) => {
  const room = MAX_KEY_LENGTH - 'LOCK_payOrder_'.length;
  t.is(payOrder.keyFor('x'.repeat(room)).length, MAX_KEY_LENGTH);
  t.throws(() => payOrder.keyFor('x'.repeat(room + 1)), { instanceOf: LockKeyError });
});

test('composite keys cannot collide whatever the parts contain', async (t) => {
  const composite = defineLock({ businessFlag: 'order' });
  const store = new MemoryLockStore();
  configure({ store });
  const a = await composite.acquireComposite(['a_b', 'c']);
  const b = await composite.acquireComposite(['a', 'b_c']);
  t.not(a!.key, b!.key);
  t.is(a!.key, 'LOCK_order_["a_b","c"]');
  t.is((await composite.acquireComposite([7, 'O42']))!.key, 'LOCK_order_["7","O42"]');
  await t.throwsAsync(composite.acquireComposite(['U1', null]), { instanceOf: LockKeyError, message: /key part 2/ });
});
