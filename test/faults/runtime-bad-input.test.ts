// Fault kind: bad input at run time. Each input gets a defined outcome: a LockKeyError with
// the body not run, or a lock on exactly the key the contract names. Methods are written in
// the woven shape (defineLock; acquire, then lease.run(body) in try/finally release), written
// by hand so each case can look inside the body. Like the fault workers (support/compile-workers.ts),
// they use the runtime's sources as they are now, not dist/ as of the last build.
import test from 'ava';
import { Redis } from 'ioredis';
import * as lockweave_1 from '../../runtime';
import { LockAcquireError, LockKeyError, MAX_KEY_LENGTH, type LockEvent } from '../../runtime';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { sleep } from '../helpers/time';
import { recordSummary } from './support/summary';

let redis: RedisServer;
let admin: Redis;
const events: LockEvent[] = [];
let operations = 0;
let faults = 0;
const startedAt = Date.now();

test.before(async () => {
  redis = await startRedisServer();
  admin = new Redis(redis.url, { maxRetriesPerRequest: 3 });
  lockweave_1.configure({ redis: redis.url, logger: (event) => events.push(event) });
});

test.after.always(async () => {
  await lockweave_1.close();
  admin?.disconnect();
  await redis?.stop();
  recordSummary({
    case: 'bad input at run time (keys, lockTime, retries): each a defined outcome',
    faults,
    operations,
    durationMs: Date.now() - startedAt,
  });
});

/** The woven shape of a tag with businessFlag=<flag> keyName=key, with a probe in the body. */
function lockedMethod(spec: lockweave_1.LockSpec) {
  const method_lock_1 = lockweave_1.defineLock(spec);
  const calls = { bodies: 0 };
  async function method(key: unknown, during?: (lease: lockweave_1.AnyLease) => Promise<unknown>): Promise<string> {
    operations++;
    const lease_1 = (await method_lock_1.acquire(key))!;
    try {
      return await lease_1.run(async () => {
        calls.bodies++;
        if (during) await during(lease_1);
        return 'body ran';
      });
    } finally {
      await lease_1.release();
    }
  }
  return { method, calls, lock: method_lock_1 };
}

test('null, undefined, empty, NaN and object keys reject with LockKeyError and the body never runs', async (t) => {
  const { method, calls } = lockedMethod({ site: 'Bad.key', businessFlag: 'badKey', retries: 0 });
  for (const key of [null, undefined, '', Number.NaN, { orderNo: 'x' }, Symbol('k')]) {
    faults++;
    const error = await t.throwsAsync(method(key), { instanceOf: LockKeyError }, `key ${String(key)}`);
    t.is(error?.name, 'LockKeyError');
  }
  t.is(calls.bodies, 0, 'no body ran');
  t.deepEqual(await admin.keys('LOCK_badKey*'), [], 'no lock was taken');
});

test(`keys longer than MAX_KEY_LENGTH (${MAX_KEY_LENGTH}) reject with LockKeyError; a key of exactly the limit locks that exact key`, async (t) => {
  const { method, calls, lock } = lockedMethod({ site: 'Long.key', businessFlag: 'longKey', retries: 0 });
  const overhead = 'LOCK_longKey_'.length;
  const atLimit = 'k'.repeat(MAX_KEY_LENGTH - overhead);
  t.is(
    await method(atLimit, async () =>
      t.is(await admin.exists(`LOCK_longKey_${atLimit}`), 1, 'the exact 8192-char key is held'),
    ),
    'body ran',
  );
  t.is(lock.keyFor(atLimit).length, MAX_KEY_LENGTH);
  for (const value of [`${atLimit}k`, 'k'.repeat(100_000), 'k'.repeat(1_000_000)]) {
    faults++;
    await t.throwsAsync(method(value), { instanceOf: LockKeyError });
  }
  t.is(calls.bodies, 1, 'only the key within the limit ran its body');
  t.deepEqual(await admin.keys('LOCK_longKey*'), [], 'nothing left');
});

test('keys with newlines, control characters, glob characters, quotes and non-ASCII text lock exactly LOCK_<flag>_<value>', async (t) => {
  const { method } = lockedMethod({ site: 'Odd.key', businessFlag: 'oddKey', retries: 0 });
  const values = [
    'line1\nline2',
    'cr\r\nlf',
    'tab\there',
    'nul\u0000byte',
    '\u00ff\u00fe binary-looking \u0001\u0002',
    '*?[a-z]',
    'quote"\'`',
    '订单-𝔘𝔫𝔦',
    ' leading and trailing ',
    'LOCK_oddKey_nested',
    '😀',
  ];
  for (const value of values) {
    faults++;
    const key = `LOCK_oddKey_${value}`;
    await method(value, async (lease) => {
      t.is(lease.key, key);
      const stored = await admin.getBuffer(Buffer.from(key, 'utf8'));
      t.is(stored?.toString('utf8'), (lease as lockweave_1.Lease).token, `exact key held for ${JSON.stringify(value)}`);
    });
    t.is(await admin.exists(Buffer.from(key, 'utf8')), 0, `released ${JSON.stringify(value)}`);
  }
  t.deepEqual(await admin.keys('LOCK_oddKey*'), []);
});

test('a huge lockTime (10 days) locks with a PTTL of 10 days', async (t) => {
  faults++;
  const tenDays = 10 * 24 * 3_600_000;
  const { method } = lockedMethod({ site: 'Huge.lease', businessFlag: 'hugeLease', lockTime: tenDays, retries: 0 });
  await method('o1', async (lease) => {
    const pttl = await admin.pttl(lease.key);
    t.true(pttl > tenDays - 60_000 && pttl <= tenDays, `PTTL ${pttl} is about 10 days`);
  });
  t.is(await admin.exists('LOCK_hugeLease_o1'), 0);
});

test('a lockTime beyond Node timer range (100 days) is refused by defineLock, or works without a watchdog renewal storm', async (t) => {
  faults++;
  const hundredDays = 100 * 24 * 3_600_000;
  let locked: ReturnType<typeof lockedMethod>;
  try {
    locked = lockedMethod({ site: 'Huger.lease', businessFlag: 'hugerLease', lockTime: hundredDays, retries: 0 });
  } catch (error) {
    t.true(error instanceof TypeError, 'refused at definition with a TypeError');
    return;
  }
  const renewedBefore = events.filter((event) => event.type === 'renewed' && event.key === 'LOCK_hugerLease_o1').length;
  await locked.method('o1', async (lease) => {
    t.true((await admin.pttl(lease.key)) > hundredDays - 60_000, 'PTTL is about 100 days');
    await sleep(500);
  });
  const renewals =
    events.filter((event) => event.type === 'renewed' && event.key === 'LOCK_hugerLease_o1').length - renewedBefore;
  // The watchdog renews every lockTime/3 (33 days); setTimeout clamps delays over 2^31-1 ms to 1 ms.
  t.true(renewals <= 1, `the watchdog renewed ${renewals} times in 500 ms`);
});

test('retries=0 against a held key: one attempt, an immediate LockAcquireError with attempts=1, the body not run', async (t) => {
  faults++;
  const { method, calls } = lockedMethod({
    site: 'Zero.retries',
    businessFlag: 'zeroRetries',
    retries: 0,
    waitTime: 5_000,
  });
  await admin.set('LOCK_zeroRetries_o1', 'someone-else', 'PX', 30_000);
  const before = Date.now();
  const error = await t.throwsAsync(method('o1'), { instanceOf: LockAcquireError });
  const elapsed = Date.now() - before;
  t.is(error?.attempts, 1);
  t.is(error?.key, 'LOCK_zeroRetries_o1');
  t.true(elapsed < 2_000, `failed at once (${elapsed} ms), not after waitTime`);
  t.is(calls.bodies, 0);
  t.is(await admin.get('LOCK_zeroRetries_o1'), 'someone-else', "the other holder's lock is untouched");
});
