// Code that is not a tagged method uses the same locks and keys — also under a plugin entry's
// `"prefix": "shop:"`, which reaches only the methods it wove. A programmatic call (withLock, lock,
// inspect) for a business a loaded tagged method locks under another prefix than the call's would
// take another key beside the method's: it is refused with a TypeError naming both prefixes and the
// fix. Compiled by tspc from test/fixtures/plugin-prefix, run against a real redis-server.
import test from 'ava';
import { join } from 'node:path';
import { configure, inspect, lock, LockAcquireError, withLock } from 'lockweave';
import { processScratch } from '../helpers/process-scratch';
import { tspc } from '../helpers/tspc';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { eventually } from '../helpers/time';

type OrdersModule = typeof import('../fixtures/plugin-prefix/src/orders');

const fixture = useRedis(test);
let orders: InstanceType<OrdersModule['Orders']>;

test.before(() => {
  const outDir = processScratch('plugin-prefix');
  const compiled = tspc(['-p', 'test/fixtures/plugin-prefix/tsconfig.json', '--outDir', outDir]);
  if (compiled.status !== 0) throw new Error(`tspc failed:\n${compiled.output}`);
  const woven = require(join(outDir, 'orders.js')) as OrdersModule;
  orders = new woven.Orders();
});

const REFUSED = {
  instanceOf: TypeError,
  message:
    /locks payOrder under the prefix "LOCK_", but the tagged method Orders\.pay locks it under "shop:".*configure\(\{ prefix: "shop:" \}\)/,
};

test.serial('withLock(), lock() and inspect() under another prefix than the woven method are refused', async (t) => {
  const orderNo = uniqueId('O');
  const key = `shop:payOrder_${orderNo}`;
  // The method holds shop:payOrder_<orderNo>.
  t.is(await orders.pay(orderNo, () => fixture.redis.exists(key)), 1);
  const request = { businessFlag: 'payOrder', key: orderNo, retries: 0 };
  await t.throwsAsync(
    withLock(request, async () => t.fail('ran')),
    REFUSED,
  );
  await t.throwsAsync(lock(request), REFUSED);
  await t.throwsAsync(lock({ businessFlag: 'payOrder', keys: [orderNo], retries: 0 }), REFUSED);
  await t.throwsAsync(inspect({ businessFlag: 'payOrder', key: orderNo }), REFUSED);
  // Inside the method's body too, where the call would have gone to Redis for LOCK_payOrder_….
  await orders.pay(orderNo, () =>
    t.throwsAsync(
      withLock(request, async () => t.fail('ran')),
      REFUSED,
    ),
  );
  t.deepEqual(await fixture.redis.keys('LOCK_*'), [], 'no key under the other prefix was taken');
  // A business no tagged method locks is the caller's to name.
  t.is(await withLock({ businessFlag: 'refund', key: orderNo }, async (lease) => lease.key), `LOCK_refund_${orderNo}`);
});

test.serial("the same prefix, in the request or from configure(), locks the woven method's key", async (t) => {
  const orderNo = uniqueId('O');
  const request = { businessFlag: 'payOrder', key: orderNo, prefix: 'shop:', retries: 0 };
  // While the method holds the key, a call from outside its chain finds it taken.
  let finish = (): void => undefined;
  const holding = orders.pay(orderNo, () => new Promise<void>((resolve) => (finish = resolve)));
  t.true(await eventually(async () => (await fixture.redis.exists(`shop:payOrder_${orderNo}`)) === 1));
  const other = await withLock(request, async () => 'ran').catch((error: unknown) => error);
  finish();
  await holding;
  t.true(other instanceof LockAcquireError, `another chain's call waited for the method's key: ${other}`);
  // Nested in the method's body: the same key, so it enters.
  t.is(await orders.pay(orderNo, () => withLock(request, async (lease) => lease.key)), `shop:payOrder_${orderNo}`);
  t.like(await inspect({ businessFlag: 'payOrder', key: orderNo, prefix: 'shop:' }), { held: false });
  configure({ prefix: 'shop:' });
  try {
    t.is(
      await withLock({ businessFlag: 'payOrder', key: orderNo }, async (lease) => lease.key),
      `shop:payOrder_${orderNo}`,
    );
  } finally {
    configure({ prefix: 'LOCK_' });
  }
});
