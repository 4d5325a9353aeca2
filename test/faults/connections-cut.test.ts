// Fault kind: the server cuts client connections (`CLIENT KILL TYPE normal`, now and then
// `TYPE pubsub` too) while processes contend for hot keys. A cut can land between a command
// and its reply, so an attempt may not know whether its SET NX took: the lock must still never
// admit two holders, every update must land exactly once, and callers get either success or
// a LockError — then lock again once the cuts stop.
import test from 'ava';
import { faultBench } from './support/fault-bench';
import { lockLeftovers } from './support/admin';
import { eventually, sleep } from '../helpers/time';
import { addResults, lostUpdates, readRedisState } from './support/counters';
import { opsOf, waitForSuccesses } from './support/ops';
import { recordSummary } from './support/summary';
import { Worker, waitForAll } from './support/workers';

const PROCESSES = 4;
const KEYS = ['hot-a', 'hot-b'];
const LOCK_TIME = 3_000;
const CUTS = 20;
const CUT_EVERY_MS = 300;

test(`${PROCESSES} processes incrementing hot keys while the server cuts their connections ${CUTS} times: no lost update, no overlapping holders, only successes or LockErrors, and locking recovers`, async (t) => {
  const startedAt = Date.now();
  const { redis, admin, workers } = await faultBench(t);
  for (let index = 0; index < PROCESSES; index++) {
    workers.push(
      Worker.start('counter-worker', {
        url: redis.url,
        workerId: `w${index}`,
        keys: KEYS,
        loops: 2,
        opsPerLoop: 1_000_000,
        runMs: 60_000,
        bodyDelayMaxMs: 3,
        body: 'counter',
        lockTime: LOCK_TIME,
        retries: 10,
        waitTime: 500,
        reportOps: true,
      }),
    );
  }
  await Promise.all(workers.map((worker) => waitForSuccesses(worker, 0, 10, 30_000)));

  let clientsCut = 0;
  for (let cut = 1; cut <= CUTS; cut++) {
    // SKIPME (the default) spares the admin connection that sends the command.
    clientsCut += Number(await admin.client('KILL', 'TYPE', cut % 5 === 0 ? 'pubsub' : 'normal'));
    await sleep(CUT_EVERY_MS);
  }
  const cutsEndedAt = Date.now();
  // An attempt whose reply was cut may have left its key set; that ghost lives one lease at most.
  await Promise.all(workers.map((worker) => waitForSuccesses(worker, cutsEndedAt, 10, LOCK_TIME + 20_000)));

  for (const worker of workers) worker.send('stop');
  const exits = await waitForAll(workers, 30_000);
  const results = await Promise.all(workers.map((worker) => worker.waitForKind('result', 1_000)));
  const totals = addResults(results);
  const state = await readRedisState(redis.url, KEYS);
  const lost = lostUpdates(totals.increments, state.counters);
  const overlaps = Math.max(totals.overlapsSeen, state.overlapsRecorded);
  const ops = workers.flatMap(opsOf);
  const failures = ops.filter((op) => !op.ok);
  // A cut can cost a lease its renewal or its release reply; the runtime then reports it lost.
  const lostReports = workers
    .flatMap((worker) => worker.messages)
    .filter((message) => message.kind === 'lock-event' && (message.event as { type: string }).type === 'lost')
    .map((message) => (message.event as { error?: { message: string } }).error?.message);
  const clean = await eventually(async () => (await lockLeftovers(admin)).length === 0, {
    timeoutMs: LOCK_TIME + 2_000,
    everyMs: 50,
    ignoreErrors: true,
  });

  recordSummary({
    case: t.title,
    faults: CUTS,
    operations: totals.ops,
    lostUpdates: lost,
    overlaps,
    durationMs: Date.now() - startedAt,
    notes: `${clientsCut} connections cut; errors ${JSON.stringify(totals.errors)}; lock events ${JSON.stringify(totals.events)}; slowest call ${totals.maxElapsedMs} ms${lostReports.length ? `; lost: ${lostReports.join(' | ')}` : ''}`,
  });

  t.deepEqual(
    exits.map((exit) => exit.code),
    workers.map(() => 0),
    'every worker exits cleanly',
  );
  t.true(clientsCut >= CUTS, `connections were really cut (${clientsCut})`);
  t.is(overlaps, 0, 'no two bodies ever held the same key at once');
  t.is(
    lost,
    0,
    `counters ${JSON.stringify(state.counters)} equal acknowledged increments ${JSON.stringify(totals.increments)}`,
  );
  t.deepEqual(
    failures.filter((op) => !op.error?.isLockError).map((op) => op.error),
    [],
    'every failure is a LockError',
  );
  t.deepEqual(state.insideLeft, [], 'every body left');
  t.true(clean, 'no lock key outlives its lease');
  t.is(totals.events.reentered ?? 0, 0, 'no call went in as reentrant');
});
