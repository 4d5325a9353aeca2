// What woven methods do when run, on the in-process store (Redis behaviour is tested elsewhere):
// the key format, unchanged results and errors, `this` and `arguments`, null keys, onFail, and
// that a returned promise settles before the lock is released.
import test from 'ava';
import * as path from 'node:path';
import { FIXTURES, TMP, linkPackage } from '../../helpers/fixture-projects';
import { tspc } from '../../helpers/tspc';
import { sleep } from '../../helpers/time';

type Runtime = typeof import('../../../runtime');
let runtime: Runtime;
let store: InstanceType<Runtime['MemoryLockStore']>;
// biome-ignore lint/suspicious/noExplicitAny: the compiled fixture is loaded with require(), without its types.
let probe: any;
const events: Array<{ type: string; key: string }> = [];

test.before(() => {
  linkPackage();
  // Its own output directory: the snapshot test compiles the same fixture in parallel.
  const outDir = path.join(TMP, 'cjs-behaviour');
  const result = tspc(['-p', path.join(FIXTURES, 'cjs'), '--outDir', outDir]);
  if (result.status !== 0) throw new Error(result.output);
  runtime = require('lockweave/runtime');
  store = new runtime.MemoryLockStore();
  runtime.configure({ store, logger: (event) => events.push(event as { type: string; key: string }) });
  const { Probe } = require(path.join(outDir, 'behaviour.js'));
  probe = new Probe('probe');
});

test.serial('locks <prefix><businessFlag>_<value> and keeps `this` and `arguments`', async (t) => {
  t.is(await probe.pay('Test001', 'extra'), 'probe:Test001:2');
  t.true(events.some((e) => e.type === 'acquired' && e.key === 'LOCK_payOrder_Test001'));
  t.true(events.some((e) => e.type === 'released' && e.key === 'LOCK_payOrder_Test001'));
  t.is(store.holder('LOCK_payOrder_Test001'), undefined);
});

test.serial("the body's error reaches the caller unchanged and the lock is released", async (t) => {
  const error = await t.throwsAsync(probe.fail('X1'), { instanceOf: RangeError, message: 'bad X1' });
  t.truthy(error);
  t.is(store.holder('LOCK_fail_X1'), undefined);
});

test.serial('a returned promise settles before the lock is released', async (t) => {
  const log: string[] = [];
  const mark = events.length;
  const pending = probe.slow('S1', log);
  const result = await pending;
  t.is(result, 'S1');
  const released = events.slice(mark).findIndex((e) => e.type === 'released' && e.key === 'LOCK_slow_S1');
  t.true(released >= 0);
  t.deepEqual(log, ['body', 'settled']);
  // The release event came after the promise settled: the lock covered the whole work.
  const order: string[] = [];
  const again = probe.slow('S2', order);
  const watch = setInterval(() => {
    if (store.holder('LOCK_slow_S2') === undefined && !order.includes('released')) order.push('released');
  }, 1);
  await again;
  await sleep(5);
  clearInterval(watch);
  t.deepEqual(order, ['body', 'settled', 'released']);
});

test.serial(
  'a method that is not async returns a rejected promise, never throws, when its key cannot be read',
  async (t) => {
    const log: string[] = [];
    let returned: unknown;
    t.notThrows(() => (returned = probe.fromJson('{"orderNo": ', log)), 'bad JSON text');
    t.true(returned instanceof Promise);
    await t.throwsAsync(returned as Promise<unknown>, { instanceOf: runtime.LockKeyError, message: /does not parse/ });
    const failing = {
      get orderNo(): string {
        throw new RangeError('no order number');
      },
    };
    t.notThrows(() => (returned = probe.fromGetter(failing, log)), 'a getter that throws');
    await t.throwsAsync(returned as Promise<unknown>, { instanceOf: RangeError, message: 'no order number' });
    t.deepEqual(log, [], 'the body did not run');
    t.is(await probe.fromJson('{"orderNo": "J1"}', log), '{"orderNo": "J1"}');
    t.is(await probe.fromGetter({ orderNo: 'G1' }, log), 'G1');
    t.true(events.some((e) => e.type === 'acquired' && e.key === 'LOCK_jsonKey_J1'));
  },
);

test.serial('a null key rejects with LockKeyError and the body does not run', async (t) => {
  const log: string[] = [];
  await t.throwsAsync(probe.slow(null, log), { instanceOf: runtime.LockKeyError });
  t.deepEqual(log, []);
});

test.serial('onFail=skip resolves undefined without running the body when the key is held', async (t) => {
  await store.tryAcquire('LOCK_skip_K1', 'someone-else', 10_000);
  const log: string[] = [];
  t.is(await probe.skipped('K1', log), undefined);
  t.deepEqual(log, []);
  await store.release('LOCK_skip_K1', 'someone-else');
  t.is(await probe.skipped('K1', log), 'K1');
});

test.serial('onFail=ClassName rejects with that class', async (t) => {
  await store.tryAcquire('LOCK_busy_K2', 'someone-else', 10_000);
  const error = await t.throwsAsync(probe.busy('K2'));
  t.is(error?.name, 'Busy');
  await store.release('LOCK_busy_K2', 'someone-else');
});
