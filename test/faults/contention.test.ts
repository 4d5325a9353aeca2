// Fault kind: heavy contention. Eight processes hammer three hot keys with locked
// read-modify-write increments; the lock is all that keeps their updates from clobbering.
import test from 'ava';
import { faultBench } from './support/fault-bench';
import { addResults, lostUpdates, readRedisState } from './support/counters';
import { recordSummary } from './support/summary';
import { Worker, waitForAll } from './support/workers';

const PROCESSES = 8;
const LOOPS_PER_PROCESS = 3;
// 8 x 3 x 170: over 500 locked increments per process, over 4,000 in all.
const OPS_PER_LOOP = 170;
const RETRIES = 20;
const WAIT_TIME = 2_000;
const KEYS = ['hot-a', 'hot-b', 'hot-c'];

test('8 processes x 3 callers, 510 locked read-modify-write increments per process on 3 hot keys: no lost update, no overlapping holders, no caller past its wait bound, no lock key left', async (t) => {
  const startedAt = Date.now();
  const { redis, workers } = await faultBench(t);

  for (let index = 0; index < PROCESSES; index++) {
    workers.push(
      Worker.start('counter-worker', {
        url: redis.url,
        workerId: `w${index}`,
        keys: KEYS,
        loops: LOOPS_PER_PROCESS,
        opsPerLoop: OPS_PER_LOOP,
        runMs: 60_000,
        bodyDelayMaxMs: 3,
        body: 'counter',
        lockTime: 10_000,
        // A generous budget (20 x 2 s): under this load no caller should ever give up.
        retries: RETRIES,
        waitTime: WAIT_TIME,
        reportOps: false,
      }),
    );
  }
  const exits = await waitForAll(workers, 90_000);
  const results = await Promise.all(workers.map((worker) => worker.waitForKind('result', 1_000)));
  const totals = addResults(results);
  const state = await readRedisState(redis.url, KEYS);
  const lost = lostUpdates(totals.increments, state.counters);
  const overlaps = Math.max(totals.overlapsSeen, state.overlapsRecorded);

  recordSummary({
    case: t.title,
    faults: 0,
    operations: totals.ops,
    lostUpdates: lost,
    overlaps,
    durationMs: Date.now() - startedAt,
    notes: `max call ${totals.maxElapsedMs} ms; lock events ${JSON.stringify(totals.events)}`,
  });

  t.deepEqual(
    exits.map((exit) => exit.code),
    workers.map(() => 0),
    'every worker exits cleanly',
  );
  t.is(totals.ops, PROCESSES * LOOPS_PER_PROCESS * OPS_PER_LOOP, 'every operation ran');
  t.deepEqual(totals.errors, {}, `no call failed: ${JSON.stringify(totals.sampleErrors)}`);
  t.is(overlaps, 0, 'no two bodies ever held the same key at once');
  t.is(lost, 0, `counters ${JSON.stringify(state.counters)} equal increments ${JSON.stringify(totals.increments)}`);
  t.deepEqual(state.insideLeft, [], 'every body left');
  t.deepEqual(state.lockKeys, [], 'every lock was released');
  t.is(totals.events.lost ?? 0, 0, 'no lease was lost');
  // No caller past its wait bound: the slowest call, wait and body included, within retries x waitTime.
  t.true(totals.maxElapsedMs <= RETRIES * WAIT_TIME, `slowest call ${totals.maxElapsedMs} ms`);
  t.is(
    totals.events.reentered ?? 0,
    0,
    "no call went in as reentrant: no caller here nests, so one would be another chain's lock",
  );
});
