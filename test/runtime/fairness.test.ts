// Fairness across processes: callers in every process get the key in their turn, so none waits
// past its bound while callers elsewhere keep coming back for the same key.
import test from 'ava';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { assertTookTurns, runHotKeyCallers } from './hot-key-callers';

const fixture = useRedis(test);

// 3 processes x 4 callers on one key, each section ~2 ms: the key is never idle. Each caller's
// bound is retries x waitTime = 2 s; served in turn, a caller waits for the 11 others, tens of
// ms (a few hundred on a loaded machine), so the bound is missed only by a caller that others
// keep overtaking. Served in turn, each process also gets about a third of the sections.
test('3 processes x 4 callers on one hot key for 8 s: every call gets the key within its wait bound, each process its share', async (t) => {
  const flag = uniqueId('fair');
  const counterKey = uniqueId('fair-counter');
  const reports = await Promise.all(
    [1, 2, 3].map(() =>
      runHotKeyCallers(fixture.server.url, ['ioredis', flag, 'K', '4', '8000', '2', '1000', counterKey]),
    ),
  );
  assertTookTurns(t, reports, Number(await fixture.redis.get(counterKey)));
});
