// Fault kind: all of them at once. Eight processes hammer three hot keys with locked
// read-modify-write increments (as in contention.test.ts) while the server cuts their connections
// and redis-server is SIGKILLed and restarted. Redis runs with `appendonly yes, appendfsync
// always`, so every write it acknowledged — counters, markers, lock keys — survives the restart:
// without that, the restart itself would free every held key and no lock could keep its promise.
//
// Beside the eight:
//   - a probe: one caller on a key of its own with a short budget, whose calls during the outage
//     must fail with a LockError within their bound, and whose other calls must all succeed;
//   - holders: each mid-body on a key of its own when Redis dies, each finishes while Redis is
//     down, so its release fails; the runtime sends it again in the background, and the key must be
//     gone within 1 s of Redis answering again. They finish 250 ms apart, so the retries' timers
//     meet the restart at four phases a quarter of their 1 s period apart: the promise is measured
//     whatever the phase, not at one lucky moment. The hot keys held at the restart are timed too.
import test from 'ava';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { faultBench } from './support/fault-bench';
import { adminClient, lockLeftovers } from './support/admin';
import { eventually, sleep } from '../helpers/time';
import { addResults, lostUpdates, readRedisState } from './support/counters';
import { opsOf, waitForSuccesses, type OpMessage } from './support/ops';
import { TMP_DIR } from './support/paths';
import { recordSummary } from './support/summary';
import { Worker, waitForAll, type WorkerMessage } from './support/workers';

const PROCESSES = 8;
const LOOPS = 3;
/** Acknowledged increments each process must reach before it is stopped (over 500). */
const MIN_INCREMENTS = 510;
const KEYS = ['hot-a', 'hot-b', 'hot-c'];
const LOCK_TIME = 10_000;
const RETRIES = 20;
const WAIT_TIME = 1_000;
const PROBE = { key: 'probe', lockTime: 2_000, retries: 3, waitTime: 500, gapMs: 30 };
/** When each holder ends its body, in ms after the kill. */
const HOLDER_RELEASES = [500, 750, 1_000, 1_250];
/** The runtime's commandTimeout for the connections it opens (runtime/api/configure.ts). */
const COMMAND_TIMEOUT = 2_000;
/** Scheduling noise on a loaded 2-core machine: an allowance, never an expectation. */
const SLACK = 3_000;
/**
 * A caller's wait bound: its retries × waitTime, plus one command timeout (an attempt sent at the
 * deadline may run that long before it fails), plus SLACK. That is the lock's own time in a call:
 * until the body begins, or the whole call when it fails — the body's own time is the body's.
 * The release after the body is one command, so it is bounded by one command timeout (its retries
 * run in the background); a command in flight when its connection is cut takes that long, as
 * ioredis drops it on reconnecting (autoResendUnfulfilledCommands: false) and it times out.
 */
const waitBound = (retries: number, waitTime: number) => retries * waitTime + COMMAND_TIMEOUT + SLACK;
const COUNTER_WAIT_BOUND = waitBound(RETRIES, WAIT_TIME);
const PROBE_WAIT_BOUND = waitBound(PROBE.retries, PROBE.waitTime);
const RELEASE_BOUND = COMMAND_TIMEOUT + SLACK;
/** Redis stays down this long: past the probe's budget (so its calls fail), well within LOCK_TIME. */
const DOWN_MS = 3_000;
/** A key whose holder's release failed in the outage is gone this soon after Redis answers again. */
const FREED_WITHIN_MS = 1_000;
const CUT_PAUSE_MS = 1_500;
const AOF = ['--appendonly', 'yes', '--appendfsync', 'always'];

interface ErrorEvent {
  type: string;
  key?: string;
  token?: string;
  during?: string;
}

const lockEvents = (worker: Worker): Array<ErrorEvent & { t: number }> =>
  worker.messages
    .filter((message: WorkerMessage) => message.kind === 'lock-event')
    .map((message) => ({ ...(message.event as ErrorEvent), t: message.t as number }));

/**
 * Polls the lock keys until none still holds the token it had; returns, per key, the ms from
 * `since` until it no longer did (undefined: still held at the timeout).
 */
async function timeUntilFreed(
  client: Redis,
  held: Map<string, string>,
  since: number,
  timeoutMs: number,
): Promise<Map<string, number | undefined>> {
  const freed = new Map<string, number | undefined>([...held.keys()].map((key) => [key, undefined]));
  const deadline = Date.now() + timeoutMs;
  for (let poll = 0; poll < 10_000 && Date.now() < deadline; poll++) {
    const pending = [...held.keys()].filter((key) => freed.get(key) === undefined);
    if (pending.length === 0) break;
    const values = await client.mget(...pending).catch(() => undefined);
    const now = Date.now();
    values?.forEach((value, index) => {
      if (value !== held.get(pending[index]!)) freed.set(pending[index]!, now - since);
    });
    await sleep(10);
  }
  return freed;
}

test(`${PROCESSES} processes x ${LOOPS} callers, ${MIN_INCREMENTS}+ locked increments per process on ${KEYS.length} hot keys while connections are cut 4 times and redis-server (AOF) is killed and restarted: no lost update, no overlap, no caller past its wait bound, failures only in the outage, a held key freed within ${FREED_WITHIN_MS} ms of Redis coming back, no key left`, async (t) => {
  const startedAt = Date.now();
  const { redis, admin, workers } = await faultBench(t, AOF);
  // A failed run keeps the AOF — every write Redis acknowledged, in order — for a look at a key's history.
  const keptAof = join(TMP_DIR, `faults-aof-${process.pid}`);
  t.teardown(() => {
    const aof = join(redis.dir, 'appendonlydir');
    if (!t.passed && existsSync(aof)) cpSync(aof, keptAof, { recursive: true });
  });
  const counters: Worker[] = [];
  for (let index = 0; index < PROCESSES; index++) {
    counters.push(
      Worker.start('counter-worker', {
        url: redis.url,
        workerId: `w${index}`,
        keys: KEYS,
        loops: LOOPS,
        // Stopped by the test once the faults are over and MIN_INCREMENTS is reached.
        opsPerLoop: 1_000_000,
        runMs: 100_000,
        bodyDelayMaxMs: 3,
        body: 'counter',
        lockTime: LOCK_TIME,
        retries: RETRIES,
        waitTime: WAIT_TIME,
        reportOps: true,
      }),
    );
  }
  const probe = Worker.start('counter-worker', {
    url: redis.url,
    workerId: 'probe',
    keys: [PROBE.key],
    loops: 1,
    opsPerLoop: 1_000_000,
    runMs: 100_000,
    bodyDelayMaxMs: 5,
    body: 'sleep',
    lockTime: PROBE.lockTime,
    retries: PROBE.retries,
    waitTime: PROBE.waitTime,
    gapMs: PROBE.gapMs,
    reportOps: true,
  });
  const holders = HOLDER_RELEASES.map((_, index) =>
    Worker.start('holder-worker', {
      url: redis.url,
      key: `held-across-outage-${index}`,
      lockTime: LOCK_TIME,
      // Each holder's key is its own: retries only cover a first attempt that came too late for its
      // bound (a process starting beside a dozen others on a loaded 2-core machine).
      retries: 5,
      waitTime: 1_000,
      watchdog: true,
      // Past the test's own length: only the `release` command ends the body.
      holdMs: 90_000,
      stayUntilExit: true,
    }),
  );
  workers.push(...counters, probe, ...holders);
  const callers = [...counters, probe];

  const cuts: Array<{ type: string; at: number; clients: number }> = [];
  const cut = async (type: 'normal' | 'pubsub') => {
    // SKIPME (the default) spares the admin connection that sends the command.
    cuts.push({ type, at: Date.now(), clients: Number(await admin.client('KILL', 'TYPE', type)) });
  };
  const recoveredSince = (since: number, count: number, timeoutMs: number) =>
    Promise.all(callers.map((worker) => waitForSuccesses(worker, since, count, timeoutMs)));

  // Everyone is working before the first fault.
  const held = await Promise.all(holders.map((holder) => holder.waitForKind('acquired', 30_000)));
  await recoveredSince(0, 20, 30_000);

  // Two cuts while Redis is up; each time every caller locks again before the next fault.
  await cut('normal');
  await sleep(CUT_PAUSE_MS);
  await recoveredSince(cuts[0]!.at, 5, 30_000);
  await cut('pubsub');
  await sleep(CUT_PAUSE_MS);
  await recoveredSince(cuts[1]!.at, 5, 30_000);

  // The outage. The holders are mid-body when Redis dies and finish while it is down.
  t.true(
    holders.every((holder) => holder.running && !holder.messages.some((message) => message.kind === 'body-end')),
    'the holders are mid-body at the kill',
  );
  await redis.kill();
  const killedAt = Date.now();
  for (const [index, releaseAfter] of HOLDER_RELEASES.entries()) {
    await sleep(Math.max(0, killedAt + releaseAfter - Date.now()));
    holders[index]!.send('release');
  }
  await Promise.all(holders.map((holder) => holder.waitForKind('done', 10_000)));
  const releaseFailedInOutage = holders.map((holder) =>
    lockEvents(holder).some((event) => event.type === 'error' && event.during === 'release' && event.t >= killedAt),
  );
  await sleep(Math.max(0, killedAt + DOWN_MS - Date.now()));
  // Redis cannot be back before its new process is spawned: times measured from here are upper
  // bounds on the time since it came back. restart() returns once the new server answers PING
  // (polled every 25 ms) — by then a holder's release may already have been sent again and landed.
  const restartBegunAt = Date.now();
  await redis.restart();
  const restartedAt = Date.now();
  const outageMs = restartedAt - killedAt;

  // A fresh connection: the admin client's own reconnect backoff must not delay the look.
  const watcher = adminClient(redis.url);
  t.teardown(() => watcher.disconnect());
  const heldAtRestart = new Map<string, string>();
  const lockKeys = await watcher.keys('LOCK_*');
  const values = lockKeys.length ? await watcher.mget(...lockKeys) : [];
  lockKeys.forEach((key, index) => values[index] != null && heldAtRestart.set(key, values[index]!));
  const freed = await timeUntilFreed(watcher, heldAtRestart, restartedAt, LOCK_TIME + 5_000);

  // Two more cuts after the restart.
  await recoveredSince(restartedAt, 5, LOCK_TIME + 30_000);
  await cut('normal');
  await sleep(CUT_PAUSE_MS);
  await recoveredSince(cuts[2]!.at, 5, 30_000);
  await cut('normal');
  const faultsEndedAt = Date.now();
  await recoveredSince(faultsEndedAt, 5, 30_000);

  // Run on until every process has its increments, then stop.
  for (const worker of counters) {
    await worker.waitFor(
      () => opsOf(worker).filter((op) => op.ok).length >= MIN_INCREMENTS,
      60_000,
      `${MIN_INCREMENTS} successful increments`,
    );
  }
  for (const worker of callers) worker.send('stop');
  for (const holder of holders) holder.send('exit');
  // No caller may hang: each loop ends its call in progress, within its bound, and exits.
  const exits = await waitForAll(workers, COUNTER_WAIT_BOUND + 10_000);
  const results = await Promise.all(counters.map((worker) => worker.waitForKind('result', 1_000)));
  const totals = addResults(results);
  const state = await readRedisState(redis.url, KEYS);
  const lost = lostUpdates(totals.increments, state.counters);
  const overlaps = Math.max(totals.overlapsSeen, state.overlapsRecorded);
  const keysAtEnd = await lockLeftovers(admin);
  const cleanAfterMs = Date.now();
  const clean = await eventually(async () => (await lockLeftovers(admin)).length === 0, {
    timeoutMs: LOCK_TIME + 2_000,
    everyMs: 50,
    ignoreErrors: true,
  });
  const leftForMs = Date.now() - cleanAfterMs;

  const counterOps = counters.flatMap(opsOf);
  const probeOps = opsOf(probe);
  const overlapsOutage = (op: OpMessage) => op.startedAt <= restartedAt && op.startedAt + op.elapsedMs >= killedAt;
  const counterFailures = counterOps.filter((op) => !op.ok);
  const probeFailures = probeOps.filter((op) => !op.ok);
  const pastBound = (ops: OpMessage[], bound: number) =>
    ops
      .filter((op) => op.waitMs > bound || op.releaseMs > RELEASE_BOUND)
      .map((op) => ({ ...op, error: op.error?.message }));
  const max = (ops: OpMessage[], pick: (op: OpMessage) => number) =>
    ops.reduce((most, op) => Math.max(most, pick(op)), 0);
  const perProcess = results.map((result) =>
    Object.values(result.increments as Record<string, number>).reduce((sum, n) => sum + n, 0),
  );

  // Every lock key held at the restart, by what the callers logged about its token.
  const errorEvents = workers.flatMap(lockEvents).filter((event) => event.type === 'error');
  const failedReleaseTokens = new Set(
    errorEvents
      .filter((event) => event.during === 'release' && event.t >= killedAt && event.t <= restartedAt)
      .map((event) => event.token),
  );
  const ghostTokens = new Set(errorEvents.filter((event) => event.during === 'acquire').map((event) => event.token));
  const atRestart = [...heldAtRestart].map(([key, token]) => ({
    key,
    freedMs: freed.get(key),
    by: held.some((message) => message.token === token)
      ? 'holder, release failed in the outage'
      : failedReleaseTokens.has(token)
        ? 'release failed in the outage'
        : ghostTokens.has(token)
          ? 'an attempt whose reply was lost'
          : 'a body under way, or a succession',
  }));
  // Leases the runtime reported lost, with when (relative to the kill) and why.
  const lostReports = workers.flatMap((worker) =>
    lockEvents(worker)
      .filter((event) => event.type === 'lost')
      .map(
        (event) =>
          `${event.key} at kill${event.t - killedAt >= 0 ? '+' : ''}${event.t - killedAt} ms: ${(event as { error?: { message: string } }).error?.message}`,
      ),
  );
  // A holder logs `released` only when its release found the key still its own: so the key survived
  // the restart (AOF), and was freed at that moment.
  const holderReleasedAt = holders.map(
    (holder) => lockEvents(holder).find((event) => event.type === 'released' && event.t >= restartBegunAt)?.t,
  );
  const holderFreedMs = holderReleasedAt.map((at) => (at === undefined ? undefined : at - restartBegunAt));
  const mustBeFreedSoon = atRestart.filter((entry) => entry.by.includes('release failed in the outage'));
  const describe = (entries: typeof atRestart) =>
    entries.map((entry) => `${entry.key} ${entry.freedMs ?? 'never'} ms (${entry.by})`).join(', ');

  const notes =
    `outage ${outageMs} ms; ${cuts.map((entry) => `${entry.type} cut ${entry.clients}`).join(', ')}; ` +
    `increments per process ${Math.min(...perProcess)}-${Math.max(...perProcess)}; ` +
    `slowest wait ${totals.maxWaitMs} ms (bound ${COUNTER_WAIT_BOUND}), release ${totals.maxReleaseMs} ms (bound ${RELEASE_BOUND}), call ${totals.maxElapsedMs} ms; ` +
    `counter calls failed ${counterFailures.length}; probe calls ${probeOps.length}, failed in the outage ${probeFailures.length}, slowest ${max(probeOps, (op) => op.elapsedMs)} ms (bound ${PROBE_WAIT_BOUND}); ` +
    `held keys freed ${holderFreedMs.map((ms) => ms ?? 'never').join(', ')} ms after Redis was started again (releases failed ${HOLDER_RELEASES.join(', ')} ms into the outage); ` +
    `keys held at restart: ${describe(atRestart)}; ` +
    `keys at the end ${keysAtEnd.length}${keysAtEnd.length ? `, gone after ${leftForMs} ms` : ''}; lock events ${JSON.stringify(totals.events)}` +
    (lostReports.length ? `; lost: ${lostReports.join(' | ')}` : '');
  recordSummary({
    case: t.title,
    faults: 1 + cuts.length,
    operations: totals.ops + probeOps.length,
    lostUpdates: lost,
    overlaps,
    durationMs: Date.now() - startedAt,
    notes,
  });
  t.log(notes);
  for (const trace of workers.flatMap((worker) => worker.messages.filter((message) => message.kind === 'trace'))) {
    t.log(
      `lost lease ${trace.token as string} on ${trace.key as string}; its process's last events on the key: ${JSON.stringify(trace.events)}`,
    );
  }
  t.log(`if this run fails, its AOF is kept in ${keptAof}`);

  t.deepEqual(
    exits.map((exit) => exit.code),
    workers.map(() => 0),
    'every worker exits cleanly',
  );
  t.true(
    cuts.length >= 2 && cuts.every((entry) => entry.clients > 0),
    `every cut cut connections: ${JSON.stringify(cuts)}`,
  );
  t.true(
    perProcess.every((count) => count >= MIN_INCREMENTS),
    `every process made ${MIN_INCREMENTS}+ increments: ${perProcess.join(', ')}`,
  );
  t.is(overlaps, 0, 'no two bodies ever held the same key at once');
  t.is(
    lost,
    0,
    `counters ${JSON.stringify(state.counters)} equal acknowledged increments ${JSON.stringify(totals.increments)}`,
  );
  t.deepEqual(state.insideLeft, [], 'every body left');
  t.true(clean, `no lock key outlives its lease: ${JSON.stringify(keysAtEnd)}`);
  t.deepEqual(lostReports, [], 'no lease was lost: the outage was shorter than every lease');
  t.is(totals.events.reentered ?? 0, 0, 'no call went in as reentrant');

  // Success, or a LockError — and that only for a call the outage overlapped.
  const badFailures = [...counterFailures, ...probeFailures].filter(
    (op) => !op.error?.isLockError || !overlapsOutage(op),
  );
  t.deepEqual(badFailures, [], 'every failure is a LockError of a call that overlapped the outage');
  t.true(probeFailures.length > 0, 'the outage was felt: the probe, whose budget is shorter than it, failed');
  // No caller past its wait bound, during the outage or not.
  t.deepEqual(
    pastBound(counterOps, COUNTER_WAIT_BOUND),
    [],
    `no hot-key call waited over ${COUNTER_WAIT_BOUND} ms or released over ${RELEASE_BOUND} ms`,
  );
  t.deepEqual(
    pastBound(probeOps, PROBE_WAIT_BOUND),
    [],
    `no probe call waited over ${PROBE_WAIT_BOUND} ms or released over ${RELEASE_BOUND} ms`,
  );

  // The held keys: each release failed in the outage and was sent again once Redis was back.
  t.deepEqual(
    releaseFailedInOutage,
    holders.map(() => true),
    "every holder's release failed while Redis was down",
  );
  t.deepEqual(
    holders.map((holder) => lockEvents(holder).filter((event) => event.type === 'lost').length),
    holders.map(() => 0),
    'no holder lost its lock',
  );
  t.deepEqual(
    holderFreedMs.map((ms) => ms !== undefined && ms <= FREED_WITHIN_MS),
    holders.map(() => true),
    `every holder's key survived the restart (AOF) and its release, sent again, freed it within ${FREED_WITHIN_MS} ms of Redis starting again: ${holderFreedMs.join(', ')} ms`,
  );
  t.deepEqual(
    mustBeFreedSoon.filter((entry) => entry.freedMs === undefined || entry.freedMs > FREED_WITHIN_MS),
    [],
    `every key whose release failed in the outage was freed within ${FREED_WITHIN_MS} ms of Redis coming back: ${describe(mustBeFreedSoon)}`,
  );
});
