// The key a call locks: `<prefix><businessFlag>_<value>`, and refusals instead of wrong locks.
import test from 'ava';
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { configure, defineLock, lock, LockKeyError, MAX_KEY_LENGTH, MemoryLockStore, withLock } from 'lockweave';
import { compositeLockKey } from '../../runtime/lock/key';
import { slotOf } from '../../runtime/store/cluster-slot';
import { fenceCounterOf, waitingLineOf } from '../../runtime/store/waiting-line';

configure({ store: new MemoryLockStore() });
const payOrder = defineLock({ businessFlag: 'payOrder' });

test('a value key is <prefix><businessFlag>_<value>, as in the original Java lock', (t) => {
  t.is(payOrder.keyFor('Test001'), 'LOCK_payOrder_Test001');
  t.is(payOrder.keyFor(42), 'LOCK_payOrder_42');
  t.is(payOrder.keyFor(12345678901234567890n), 'LOCK_payOrder_12345678901234567890');
  t.is(payOrder.keyFor(true), 'LOCK_payOrder_true');
});

// Serial: another test of this file configures a store of its own while the concurrent ones run.
test.serial(
  'a keyless lock is <prefix><businessFlag>, one per business, and never a keyed key of any flag',
  async (t) => {
    const nightly = defineLock({ businessFlag: 'nightly' });
    const lease = await nightly.acquireKeyless();
    t.is(lease.key, 'LOCK_nightly');
    // A second call waits for the first: retries=0 makes it fail at once instead.
    await t.throwsAsync(defineLock({ businessFlag: 'nightly', retries: 0 }).acquireKeyless());
    await lease.release();
    // A keyed key goes on with `_` after its flag, and a flag holds none: no value of any flag gives LOCK_nightly.
    t.not(payOrder.keyFor('nightly'), 'LOCK_nightly');
    t.regex(defineLock({ businessFlag: 'night' }).keyFor('ly'), /^LOCK_night_ly$/);
  },
);

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

// ── One encoding: no two (businessFlag, key) pairs give one key, no value reaches lockweave's own keys ──

test('plain values keep the key users see; the three forms differ in their first character', (t) => {
  t.is(payOrder.keyFor('user:42/a b_c'), 'LOCK_payOrder_user:42/a b_c');
  t.is(
    payOrder.keyFor('["x","y"]'),
    'LOCK_payOrder_"[\\"x\\",\\"y\\"]"',
    'a value that looks like a composite is quoted',
  );
  t.is(payOrder.keyFor('"x"'), 'LOCK_payOrder_"\\"x\\""');
  t.is(
    payOrder.keyFor('{t1}o7'),
    'LOCK_payOrder_"\\u007bt1\\u007do7"',
    'braces never reach the key: no value picks a Cluster slot',
  );
  t.is(payOrder.keyFor('a}b'), 'LOCK_payOrder_"a\\u007db"');
});

test('the single string \'["x","y"]\' and the composite [x, y] lock different keys', async (t) => {
  const store = new MemoryLockStore();
  configure({ store });
  const single = await payOrder.acquire('["x","y"]');
  const composite = await payOrder.acquireComposite(['x', 'y']);
  t.not(single!.key, composite!.key);
  t.is(composite!.key, 'LOCK_payOrder_["x","y"]', 'composite keys are unchanged');
  t.not(
    (await payOrder.acquireComposite(['x']))!.key,
    (await payOrder.acquire('x'))!.key,
    'one part is not the plain value',
  );
});

test('an empty composite key rejects with LockKeyError, from acquireComposite and withLock alike', async (t) => {
  configure({ store: new MemoryLockStore() });
  await t.throwsAsync(payOrder.acquireComposite([]), { instanceOf: LockKeyError, message: /no parts/ });
  let ran = false;
  await t.throwsAsync(
    withLock({ businessFlag: 'payOrder', key: [] }, () => (ran = true)),
    { instanceOf: LockKeyError },
  );
  t.false(ran);
});

test('a lone surrogate rejects with LockKeyError: Redis would store U+FFFD and two values would share a key', async (t) => {
  configure({ store: new MemoryLockStore() });
  for (const value of ['a\ud800', 'a\udc00', '\udc00\ud800']) {
    await t.throwsAsync(payOrder.acquire(value), { instanceOf: LockKeyError, message: /lone UTF-16 surrogate/ });
    await t.throwsAsync(payOrder.acquireComposite(['ok', value]), { instanceOf: LockKeyError, message: /key part 2/ });
  }
  t.is(payOrder.keyFor('a\ud83d\ude00'), 'LOCK_payOrder_a\ud83d\ude00', 'a well-formed pair is kept');
});

test('a businessFlag holds letters, digits and . : - only: defineLock throws, withLock and lock reject', async (t) => {
  configure({ store: new MemoryLockStore() });
  for (const flag of ['a_b', 'pay\norder', 'pay{x}', '{x}', 'a b', '', 'ä', 42]) {
    t.throws(
      () => defineLock({ businessFlag: flag as string }),
      { instanceOf: TypeError, message: /businessFlag/ },
      String(flag),
    );
    let ran = false;
    await t.throwsAsync(
      withLock({ businessFlag: flag as string, key: 'c' }, () => (ran = true)),
      { instanceOf: TypeError },
      String(flag),
    );
    await t.throwsAsync(lock({ businessFlag: flag as string, key: 'c' }), { instanceOf: TypeError }, String(flag));
    t.false(ran);
  }
  t.is(defineLock({ businessFlag: 'pay.order:v2-eu' }).keyFor('A'), 'LOCK_pay.order:v2-eu_A');
});

test('a prefix holds letters, digits and _ . : - with at most one hash tag, wherever it is set', async (t) => {
  for (const prefix of ['{app}LOCK_', 'LOCK_{app}:', '', 'shop:'])
    t.notThrows(() => defineLock({ businessFlag: 'f', prefix }), prefix);
  for (const prefix of ['{}x', '{a}{b}', 'a}', '{a', 'a b', 'x\n', '}{']) {
    t.throws(() => defineLock({ businessFlag: 'f', prefix }), { instanceOf: TypeError, message: /prefix/ }, prefix);
    await t.throwsAsync(
      withLock({ businessFlag: 'f', key: 'k', prefix }, () => 1),
      { instanceOf: TypeError },
      prefix,
    );
    t.throws(() => configure({ prefix }), { instanceOf: TypeError }, prefix);
  }
  configure({ store: new MemoryLockStore() });
});

/** Reads the value part back: what the encoding promises can always be done. */
function decode(rest: string): { single: string } | { parts: string[] } {
  if (rest.startsWith('[')) return { parts: JSON.parse(rest) as string[] };
  if (rest.startsWith('"')) return { single: JSON.parse(rest) as string };
  return { single: rest };
}

const flagArb = fc.stringMatching(/^[A-Za-z0-9.:-]{1,6}$/);
// Values built from the characters that matter: separators, quotes, brackets, braces, escapes,
// the names of lockweave's own keys, and some text besides.
const textArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '_',
        '"',
        '[',
        ']',
        '{',
        '}',
        ',',
        '\\',
        ':',
        'lockweave',
        ':lockweave:line',
        ':lockweave:fence',
        ':{lockweave}:lapses',
        ':lockweave:leases',
        ':lockweave:claim',
        'u007b',
        ' ',
        '\n',
      ),
      fc.string({ minLength: 1, maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((pieces) => pieces.join(''))
  .filter((text) => text !== '' && !/[\uD800-\uDFFF]/u.test(text));
const requestArb = fc.record({
  flag: flagArb,
  key: fc.oneof(textArb, fc.integer(), fc.array(fc.oneof(textArb, fc.integer()), { minLength: 1, maxLength: 3 })),
});
const asText = (key: unknown): unknown => (Array.isArray(key) ? key.map(String) : String(key));

test("property: one Redis key means one (businessFlag, key), and no key is lockweave's own", (t) => {
  for (const prefix of ['LOCK_', '{app}LOCK_', '']) {
    fc.assert(
      fc.property(requestArb, requestArb, (a, b) => {
        const keyOf = (r: typeof a) => {
          const L = defineLock({ businessFlag: r.flag, prefix });
          return Array.isArray(r.key) ? compositeLockKey(prefix, r.flag, r.key) : L.keyFor(r.key);
        };
        const [ka, kb] = [keyOf(a), keyOf(b)];
        if (ka === kb) assert.deepStrictEqual([a.flag, asText(a.key)], [b.flag, asText(b.key)], `${ka} is two locks`);
        // It reads back to what was asked.
        const rest = ka.slice(prefix.length + a.flag.length + 1);
        assert.deepStrictEqual(
          decode(rest),
          Array.isArray(a.key) ? { parts: a.key.map(String) } : { single: String(a.key) },
        );
        // No lock key is another's line, lapses or fencing counter, nor its own; those share its slot.
        for (const own of [...Object.values(waitingLineOf(kb)), fenceCounterOf(kb)]) assert.notStrictEqual(ka, own);
        assert.strictEqual(slotOf(fenceCounterOf(ka)), slotOf(ka));
      }),
      { numRuns: 300 },
    );
  }
  t.pass();
});

test("a value that names another key's fencing counter or line locks a key of its own", (t) => {
  for (const prefix of ['LOCK_', '{app}LOCK_']) {
    const L = defineLock({ businessFlag: 'f', prefix });
    for (const base of ['{t1}o7', 'o7']) {
      const key = L.keyFor(base);
      for (const own of [...Object.values(waitingLineOf(key)), fenceCounterOf(key)]) {
        const suffix = own.slice(own.indexOf('lockweave') - (own.includes('{lockweave}') ? 2 : 1));
        t.not(L.keyFor(base + suffix), own, `${prefix} ${base}${suffix}`);
        t.not(L.keyFor(`${base}:lockweave:${own.split(':').pop()}`), own);
      }
    }
  }
});

test.serial(
  'acquire, run and runComposite return a rejected promise, never throw, whatever fails on the way',
  async (t) => {
    configure({ store: new MemoryLockStore() });
    const redlocked = defineLock({ businessFlag: 'sync', redlock: true });
    configure({ defaults: { fencing: true } }); // valid alone; together with the spec's redlock, refused when resolved
    try {
      for (const call of [
        () => redlocked.acquire('k'),
        () => redlocked.run('k', async () => 'ran'),
        () => redlocked.runComposite(['a', 'b'], async () => 'ran'),
      ]) {
        let returned: Promise<unknown> | undefined;
        t.notThrows(() => (returned = call()));
        await t.throwsAsync(returned!, { instanceOf: TypeError, message: /redlock and fencing/ });
      }
      for (const bad of [undefined, 'not an array', {}] as unknown as unknown[][]) {
        await t.throwsAsync(payOrder.acquireComposite(bad), { instanceOf: LockKeyError });
      }
    } finally {
      configure({ defaults: {} });
    }
  },
);
