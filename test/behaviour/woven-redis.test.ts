// Woven methods, compiled by tspc from test/fixtures/behaviour, running against a real redis-server.
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { LockAcquireError, LockKeyError, type LockEvent } from 'lockweave';
import { processScratch } from '../helpers/process-scratch';
import { tspc } from '../helpers/tspc';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { sleep, until } from '../helpers/time';

type PaymentsModule = typeof import('../fixtures/behaviour/src/payments');

const outDir = processScratch('behaviour');
const events: LockEvent[] = [];
const fixture = useRedis(test, { logger: (event) => events.push(event) });
let woven: PaymentsModule;
let payments: InstanceType<PaymentsModule['Payments']>;

test.before(() => {
  const compiled = tspc(['-p', 'test/fixtures/behaviour/tsconfig.json', '--outDir', outDir]);
  if (compiled.status !== 0) throw new Error(`tspc failed:\n${compiled.output}`);
  woven = require(join(outDir, 'payments.js')) as PaymentsModule;
  payments = new woven.Payments();
});

/** The token Redis holds for `key` right now. */
const holder = (key: string) => fixture.redis.get(key);

test.serial('each key kind locks <prefix><businessFlag>_<value>, read straight from the argument', async (t) => {
  const { Order } = woven;
  const seen: Record<string, string | null> = {};
  const record = (name: string, key: string) => async () => {
    seen[name] = (await holder(key)) && key;
  };
  await payments.byValue('Test001', record('value', 'LOCK_payOrder_Test001'));
  await payments.byNumber(42, record('number', 'LOCK_payOrder_42'));
  await payments.byPath({ order: new Order('Test005', 'U1') }, record('path', 'LOCK_payOrder_Test005'));
  await payments.byBean(new Order('Test002', 'U1'), record('bean', 'LOCK_payOrder_Test002'));
  await payments.byMap(new Map([['orderNo', 'Test003']]), record('map', 'LOCK_payOrder_Test003'));
  await payments.byRecord({ orderNo: 'Test006' }, record('record', 'LOCK_payOrder_Test006'));
  await payments.byJsonText('{"orderNo":"Test007"}', record('json', 'LOCK_payOrder_Test007'));
  await payments.byComposite(new Order('O9', 'U9'), record('composite', 'LOCK_userOrder_["U9","O9"]'));
  await woven.lockedFunction('F1', record('function', 'LOCK_function_F1'));
  t.deepEqual(seen, {
    value: 'LOCK_payOrder_Test001',
    number: 'LOCK_payOrder_42',
    path: 'LOCK_payOrder_Test005',
    bean: 'LOCK_payOrder_Test002',
    map: 'LOCK_payOrder_Test003',
    record: 'LOCK_payOrder_Test006',
    json: 'LOCK_payOrder_Test007',
    composite: 'LOCK_userOrder_["U9","O9"]',
    function: 'LOCK_function_F1',
  });
  // Every lock was released when its body ended.
  t.deepEqual(await fixture.redis.keys('LOCK_*'), []);
});

test.serial(
  'a tag without keyName locks <prefix><businessFlag>: every call of it takes one lock, one body at a time',
  async (t) => {
    let inside = 0;
    let most = 0;
    const seen: Array<string | null> = [];
    const body = async () => {
      most = Math.max(most, ++inside);
      seen.push(await holder('LOCK_nightly'));
      await sleep(20);
      inside--;
    };
    await Promise.all([payments.nightly(body), payments.nightly(body), payments.nightly(body)]);
    t.is(most, 1, 'one body at a time');
    t.true(
      seen.every((token) => typeof token === 'string' && token.length > 0),
      `LOCK_nightly held by each: ${seen}`,
    );
    t.deepEqual(await fixture.redis.keys('LOCK_*'), []);
  },
);

test.serial(
  'keyNames=from,to holds both accounts; transfers in opposite directions take turns and never deadlock',
  async (t) => {
    const inside = new Set<string>();
    let overlaps = 0;
    const move = (from: string, to: string) =>
      payments.transfer(from, to, async () => {
        t.truthy(await holder(`LOCK_account_${from}`));
        t.truthy(await holder(`LOCK_account_${to}`));
        if (inside.has(from) || inside.has(to)) overlaps++;
        inside.add(from).add(to);
        await sleep(10);
        inside.delete(from);
        inside.delete(to);
      });
    await Promise.all([move('A', 'B'), move('B', 'A'), move('A', 'B'), move('B', 'A'), move('C', 'D')]);
    t.is(overlaps, 0);
    t.deepEqual(await fixture.redis.keys('LOCK_*'), []);
  },
);

test.serial(
  'signal=options.signal: an abort while the woven method waits rejects it at once with the reason',
  async (t) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = payments.cancellable('T9', {}, () => held);
    await until(async () => (await holder('LOCK_cancel_T9')) !== null, { what: 'the first call holding' });
    const controller = new AbortController();
    let ran = false;
    const waiting = payments.cancellable('T9', { signal: controller.signal }, async () => {
      ran = true;
    });
    await until(async () => (await fixture.redis.zcard('{LOCK_cancel_T9}:lockweave:line')) === 1, {
      what: 'the second call in line',
    });
    const reason = new Error('request abandoned');
    controller.abort(reason);
    t.is(await t.throwsAsync(waiting), reason);
    release();
    await holding;
    t.false(ran);
    t.deepEqual(await fixture.redis.keys('LOCK_*'), []);
  },
);

test.serial('a null, undefined or empty key rejects with LockKeyError and the body never runs', async (t) => {
  let ran = 0;
  const body = async () => void ran++;
  await t.throwsAsync(payments.byValue(null as unknown as string, body), { instanceOf: LockKeyError });
  await t.throwsAsync(payments.byValue('', body), { instanceOf: LockKeyError });
  await t.throwsAsync(payments.byPath({ order: null }, body), { instanceOf: LockKeyError });
  await t.throwsAsync(payments.byPath({}, body), { instanceOf: LockKeyError });
  await t.throwsAsync(payments.byMap(new Map(), body), { instanceOf: LockKeyError });
  t.is(ran, 0);
  t.deepEqual(await fixture.redis.keys('LOCK_payOrder_*'), []);
});

test('return values, thrown errors, `this` and `arguments` reach the caller unchanged', async (t) => {
  const value = { paid: true };
  t.is(await payments.byValue(uniqueId('r'), async () => value), value);
  const failure = new TypeError('card declined');
  t.is(await t.throwsAsync(payments.byValue(uniqueId('e'), async () => Promise.reject(failure))), failure);
  const context = await payments.context(uniqueId('c'), 'x', 'y');
  t.is(context.self, payments);
  t.is(context.args, 3);
});

test('the lock is held until a returned promise settles, then released', async (t) => {
  const orderNo = uniqueId('settle');
  let heldDuringWork: string | null = null;
  await payments.byValue(orderNo, () =>
    // A body that returns a promise without awaiting it: the lock must cover the whole of it.
    sleep(150).then(async () => {
      heldDuringWork = await holder(`LOCK_payOrder_${orderNo}`);
    }),
  );
  t.truthy(heldDuringWork);
  t.is(await holder(`LOCK_payOrder_${orderNo}`), null);
});

test('callers of one key take turns: concurrent read-modify-writes lose no update', async (t) => {
  const counterKey = uniqueId('counter');
  await Promise.all(Array.from({ length: 30 }, () => payments.increment(counterKey, fixture.redis)));
  t.is(await fixture.redis.get(counterKey), '30');
});

test('several processes calling one woven method lose no update', async (t) => {
  const counterKey = uniqueId('xcounter');
  const worker = join(outDir, 'worker.js');
  const runs = Array.from({ length: 3 }, () => runProcess(worker, ['increment', counterKey, '15'], fixture.server.url));
  for (const code of await Promise.all(runs)) t.is(code, 0);
  t.is(await fixture.redis.get(counterKey), '45');
});

test('a waiter gets the lock as soon as the holder releases, long before its next scheduled attempt', async (t) => {
  const orderNo = uniqueId('wake');
  const first = payments.patient(orderNo, () => sleep(200));
  await sleep(30);
  const started = Date.now();
  await payments.patient(orderNo, async () => undefined);
  await first;
  // The next scheduled attempt is 60 s away (waitTime=60s).
  t.true(Date.now() - started < 20_000);
});

test('when the holder keeps the key, a caller gives up after its retries with LockAcquireError', async (t) => {
  const orderNo = uniqueId('exhaust');
  let release!: () => void;
  const holding = payments.impatient(orderNo, () => new Promise<void>((resolve) => (release = resolve)));
  await sleep(30);
  const error = await t.throwsAsync(
    payments.impatient(orderNo, async () => {
      t.fail('ran without the lock');
    }),
    {
      instanceOf: LockAcquireError,
    },
  );
  t.is(error!.key, `LOCK_wait_${orderNo}`);
  t.true(error!.attempts >= 3);
  release();
  await holding;
});

test('onFail=skip resolves undefined without running the body; onFail=Class rejects with that class', async (t) => {
  const orderNo = uniqueId('busy');
  let release!: () => void;
  const holding = payments.skipIfBusy(orderNo, () => new Promise<void>((resolve) => (release = resolve)));
  await sleep(30);
  let ran = 0;
  t.is(await payments.skipIfBusy(orderNo, async () => void ran++), undefined);
  await t.throwsAsync(
    payments.refuseIfBusy(orderNo, async () => void ran++),
    { instanceOf: woven.PayRefused },
  );
  t.is(ran, 0);
  release();
  await holding;
});

test('autoUnlock=false keeps the key after the body until the lease ends', async (t) => {
  const orderNo = uniqueId('keep');
  await payments.keepAfter(orderNo, async () => undefined);
  t.truthy(await holder(`LOCK_keep_${orderNo}`));
  t.true((await fixture.redis.pttl(`LOCK_keep_${orderNo}`)) <= 1_000);
});

test('the watchdog keeps a long body locked past its lockTime', async (t) => {
  const orderNo = uniqueId('renew');
  const key = `LOCK_renew_${orderNo}`;
  let token: string | null = null;
  await payments.renewed(orderNo, async () => {
    token = await holder(key);
    await sleep(1_000); // more than three leases of 300 ms
    t.is(await holder(key), token);
  });
  t.truthy(token);
  t.true(events.some((e) => e.type === 'renewed' && e.key === key));
});

test("a caller whose lease ran out does not delete the next holder's lock", async (t) => {
  const orderNo = uniqueId('expire');
  const key = `LOCK_short_${orderNo}`;
  const first = payments.shortLease(orderNo, () => sleep(500));
  // The first caller's 200 ms lease ends (no watchdog) while it is still in its 500 ms body: watched on
  // the key, not timed from the call, whose acquire may start late on a loaded machine.
  await until(async () => (await holder(key)) !== null, { what: 'the first caller takes the key' });
  await until(async () => (await holder(key)) === null, { what: "the first caller's lease ends" });
  await payments.longLease(orderNo, async () => {
    const secondToken = await holder(key);
    t.truthy(secondToken);
    await first; // the first caller's release runs now, while the second holds the key
    t.is(await holder(key), secondToken);
  });
  t.true(events.some((e) => e.type === 'lost' && e.key === key));
});

test('a nested woven call for the same key in the same chain goes straight in; the outer exit releases', async (t) => {
  const orderNo = uniqueId('nested');
  const key = `LOCK_nested_${orderNo}`;
  const inside = await payments.outer(orderNo, async () => holder(key));
  t.truthy(inside, 'inner ran while the outer lock was held (inner has retries=0: it would have failed otherwise)');
  t.true(events.some((e) => e.type === 'reentered' && e.key === key));
  t.is(await holder(key), null);
});

test('a holder killed with SIGKILL blocks others only until its lease ends', async (t) => {
  const orderNo = uniqueId('killed');
  const worker = spawn(process.execPath, [join(outDir, 'worker.js'), 'hold', orderNo], {
    env: { ...process.env, REDIS_URL: fixture.server.url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('worker did not take the lock in 20 s')), 20_000);
    worker.stdout!.on('data', (data) => String(data).includes('held') && (clearTimeout(timer), resolve()));
  });
  const key = `LOCK_payOrder_${orderNo}`;
  // Shorten the dead holder's lease (its watchdog is dead with it) so the test need not wait 30 s.
  await fixture.redis.pexpire(key, 500);
  worker.kill('SIGKILL');
  const started = Date.now();
  await payments.byValueRetrying(orderNo, async () => undefined);
  // A dead holder publishes no release: the key is noticed free at a scheduled attempt
  // (every 250 ms here) after its lease ended. The bound is generous on purpose.
  t.true(Date.now() - started < 15_000);
  t.is(await holder(key), null);
});

function runProcess(file: string, args: string[], redisUrl: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      env: { ...process.env, REDIS_URL: redisUrl },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
