// node-redis, Valkey GLIDE and ioredis processes share locks: the same key, line of waiters and
// release channels, so callers on any client take turns on one key and each gets its share.
import test from 'ava';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { assertTookTurns, runCallersTogether } from './hot-key-callers';

const fixture = useRedis(test);

// One process per family x 3 callers on one key for 5 s, each section a read-modify-write of a
// counter that only the lock protects. Bound per caller: retries x waitTime = 2 s, as in
// fairness.test.ts; a process overtaken by the others would miss it or get far less than its share.
test('node-redis v6, node-redis v5, GLIDE and ioredis processes take turns on one key: no lost update, each its share', async (t) => {
  const flag = uniqueId('interop');
  const counterKey = uniqueId('interop-counter');
  const families = ['redis', 'redis5', 'glide', 'ioredis'];
  const reports = await runCallersTogether(
    'hot-key-callers',
    fixture.server.url,
    families.map((family) => [family, flag, 'K', '3', '5000', '2', '1000', counterKey]),
  );
  assertTookTurns(t, reports, Number(await fixture.redis.get(counterKey)));
});
