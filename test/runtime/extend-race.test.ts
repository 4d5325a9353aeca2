// extend() beside the watchdog: a renewal of the old length must never land after the extension and
// cut it back. Redis is paused for writes (CLIENT PAUSE WRITE) while extend() is on its way, longer than
// the watchdog's period (400 ms) and shorter than the lease, so a renewal the watchdog sent meanwhile would
// queue behind it.
import test from 'ava';
import { defineLock } from 'lockweave';
import { uniqueId, useRedis } from '../helpers/redis-fixture';

const fixture = useRedis(test);

test('a watchdog renewal never cuts an extension back to lockTime', async (t) => {
  const L = defineLock({ businessFlag: uniqueId('extend-race'), lockTime: 1_200 });
  const lease = (await L.acquire('A'))!;
  await fixture.redis.call('client', 'pause', '700', 'WRITE');
  await lease.extend(30_000);
  const ttl = await fixture.redis.pttl(lease.key);
  t.true(ttl > 20_000, `ttl ${ttl}: extended, not renewed back to 1,200 ms`);
  t.true(lease.held);
  await lease.release();
});
