// Fairness across processes: callers in every process get the key in their turn, so none waits
// past its bound while callers elsewhere keep coming back for the same key.
import test from 'ava';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { assertTookTurns, runCallersTogether } from './hot-key-callers';

const fixture = useRedis(test);

// 3 processes x 4 callers on one key, each section ~2 ms: the key is never idle. Each caller's
// bound is retries x waitTime = 2 s; served in turn, a caller waits for the 11 others, tens of
// ms (a few hundred on a loaded machine), so the bound is missed only by a caller that others
// keep overtaking. Served in turn, each process also gets about a third of the sections.
test('3 processes x 4 callers on one hot key for 8 s: every call gets the key within its wait bound, each process its share', async (t) => {
  const flag = uniqueId('fair');
  const counterKey = uniqueId('fair-counter');
  const args = ['ioredis', flag, 'K', '4', '8000', '2', '1000', counterKey];
  const reports = await runCallersTogether('hot-key-callers', fixture.server.url, [args, args, args]);
  assertTookTurns(t, reports, Number(await fixture.redis.get(counterKey)));
});

// 2 processes x 2 callers on one key, 20 ms sections, each caller pausing 5 ms between calls: while
// one caller of a process holds the key and the other pauses, that process has no waiter for it.
// The cohort (at most 8 successions in a row kept in one process) must count on through those
// moments, or the process that first has the key keeps it by take-overs while the other's callers
// wait at the head of the line until their bound (3 x 500 ms) runs out. Served in turn, each process
// gets about half the sections, a caller waits for a cohort of the other process (8 x 20 ms) and
// its own partner; a quarter is a bound that a loaded machine still keeps.
test('2 processes x 2 callers pausing between calls: the cohort counts on, each process gets its share, no call fails', async (t) => {
  const flag = uniqueId('cohort');
  const counterKey = uniqueId('cohort-counter');
  const args = [flag, 'K', '2', '2500', '20', '5', '3', '500', counterKey];
  const reports = await runCallersTogether('cohort-callers', fixture.server.url, [args, args]);
  const sections = reports.map((r) => r.sections);
  const total = sections.reduce((a, b) => a + b);
  const summary = reports
    .map((r, i) => `P${i + 1}: ${r.sections} sections, ${r.failed} failed, max wait ${r.maxWaitMs} ms`)
    .join('; ');
  t.deepEqual(
    reports.map((r) => r.otherErrors),
    [[], []],
  );
  t.deepEqual(
    reports.map((r) => r.failed),
    [0, 0],
    summary,
  );
  t.is(Number(await fixture.redis.get(counterKey)), total, `no section overlapped another: ${summary}`);
  t.true(Math.min(...sections) >= total / 4, `shares: ${summary}`);
  t.log(summary);
});
