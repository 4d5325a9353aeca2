// Fault kind: a Redis Cluster primary dies. Eight processes, three callers each, make locked
// read-modify-write increments on four hot keys spread over the three shards (one a value with braces)
// — the counter workers of test/faults — with the runtime opening the Cluster from its node URLs,
// while the primary of shard 0 is SIGKILLed and its replica is promoted (cluster-node-timeout 1 s).
// The counters live on a plain redis-server of their own, so the failover can lose no data the
// verdict is read from: an overlap of two holders is the only way an update is lost.
//
// Beside them, holders: each mid-body on a key of shard 0 when its primary dies, each ends its body
// during the outage, so its release fails; the runtime sends it again when the Cluster's slot map
// names the new primary (store/cluster-primaries.ts), and the key must be free within 1 s of the
// promotion.
import test from 'ava';
import { Cluster } from 'ioredis';
import { addResults, lostUpdates, readRedisState } from '../faults/support/counters';
import { opsOf, waitForSuccesses, type OpMessage } from '../faults/support/ops';
import { Worker, waitForAll, type WorkerMessage } from '../faults/support/workers';
import { keysPerShard, startRedisCluster } from '../helpers/redis-cluster';
import { lockKey } from '../../runtime/lock/key';
import { redisServerVersion, startRedisServer } from '../helpers/redis-server';
import { eventually, sleep } from '../helpers/time';

const PROCESSES = 8;
const LOOPS = 3;
/** Acknowledged increments each process must reach before it is stopped. */
const MIN_INCREMENTS = 100;
const LOCK_TIME = 10_000;
const RETRIES = 20;
const WAIT_TIME = 1_000;
/** When each holder ends its body, in ms after the kill: before the promotion (about 2 s). */
const HOLDER_RELEASES = [300, 700];
/** A key whose release failed in the outage is free this soon after the promotion. */
const FREED_WITHIN_MS = 1_000;
// The keys the workers lock, as the runtime encodes them (a value with braces is written quoted).
const counterKey = (value: string) => lockKey('LOCK_', 'faultCounter', value);
const holderKey = (value: string) => lockKey('LOCK_', 'faultHold', value);

const lockEvents = (
  worker: Worker,
): Array<{ type: string; key?: string; token?: string; during?: string; t: number }> =>
  worker.messages
    .filter((message: WorkerMessage) => message.kind === 'lock-event')
    .map((message) => ({ ...(message.event as { type: string }), t: message.t as number }));

test(`${PROCESSES} processes x ${LOOPS} callers on 4 hot keys over 3 shards while a primary is SIGKILLed: no lost update, no overlap, locking on its shard again after the promotion, held keys freed within ${FREED_WITHIN_MS} ms of it`, async (t) => {
  t.log(`server: ${redisServerVersion()}`);
  const startedAt = Date.now();
  const cluster = await startRedisCluster();
  const data = await startRedisServer();
  const probe = new Cluster([...cluster.urls], { redisOptions: { commandTimeout: 2_000 } });
  probe.on('error', () => undefined);
  const workers: Worker[] = [];
  t.teardown(async () => {
    await Promise.all(workers.map((worker) => worker.dispose()));
    probe.disconnect();
    await cluster.stop();
    await data.stop();
  });

  const [shard0, shard1, shard2] = keysPerShard(counterKey, 'hot', 1);
  const [tagged0] = keysPerShard(counterKey, 'hot', 1, true);
  const hot = [shard0![0]!, tagged0![0]!, shard1![0]!, shard2![0]!];
  const onFailedShard = new Set([shard0![0]!, tagged0![0]!]);
  const held = keysPerShard(holderKey, 'held', HOLDER_RELEASES.length)[0]!;
  const victim = await cluster.primaryOf(counterKey(shard0![0]!));
  t.is(victim, await cluster.primaryOf(holderKey(held[0]!)));

  const counters = Array.from({ length: PROCESSES }, (_, index) =>
    Worker.start('counter-worker', {
      url: data.url,
      lockCluster: cluster.urls,
      workerId: `w${index}`,
      keys: hot,
      loops: LOOPS,
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
  const holders = held.map((value) =>
    Worker.start('holder-worker', {
      url: data.url,
      lockCluster: cluster.urls,
      key: value,
      lockTime: LOCK_TIME,
      retries: 0,
      waitTime: 1_000,
      watchdog: true,
      holdMs: 90_000,
      stayUntilExit: true,
    }),
  );
  workers.push(...counters, ...holders);

  const tokens = await Promise.all(holders.map((holder) => holder.waitForKind('acquired', 30_000)));
  await Promise.all(counters.map((worker) => waitForSuccesses(worker, 0, 20, 60_000)));

  const { killedAt, promotion: promoting } = await cluster.killPrimary(victim);
  for (const [index, releaseAfter] of HOLDER_RELEASES.entries()) {
    await sleep(Math.max(0, killedAt + releaseAfter - Date.now()));
    holders[index]!.send('release');
  }
  const promotion = await promoting;
  const { promotedAt } = promotion;
  // Polls the holders' keys on the new primary until each no longer holds the holder's token.
  const freedAt = new Map<string, number>();
  const keysHeld = held.map((value, index) => [holderKey(value), tokens[index]!.token as string] as const);
  for (
    let poll = 0;
    poll < 2_000 && freedAt.size < keysHeld.length && Date.now() < promotedAt + LOCK_TIME + 5_000;
    poll++
  ) {
    for (const [key, token] of keysHeld) {
      if (freedAt.has(key)) continue;
      const value = await probe.get(key).catch(() => token);
      if (value !== token) freedAt.set(key, Date.now());
    }
    await sleep(10);
  }
  await Promise.all(holders.map((holder) => holder.waitForKind('done', 10_000)));

  // Run on until every process has its increments, then stop.
  for (const worker of counters) {
    await waitForSuccesses(worker, promotedAt, 10, 60_000);
    await worker.waitFor(
      () => opsOf(worker).filter((op) => op.ok).length >= MIN_INCREMENTS,
      90_000,
      `${MIN_INCREMENTS} successful increments`,
    );
  }
  for (const worker of counters) worker.send('stop');
  for (const holder of holders) holder.send('exit');
  const exits = await waitForAll(workers, RETRIES * WAIT_TIME + 15_000);
  const results = await Promise.all(counters.map((worker) => worker.waitForKind('result', 1_000)));
  const totals = addResults(results);
  const state = await readRedisState(data.url, hot);
  const lost = lostUpdates(totals.increments, state.counters);
  const overlaps = Math.max(totals.overlapsSeen, state.overlapsRecorded);
  const leftovers = async () => {
    const keys = await Promise.all(
      probe.nodes('master').map(async (node) => [...(await node.keys('LOCK_*')), ...(await node.keys('{LOCK_*'))]),
    );
    return keys.flat();
  };
  const clean = await eventually(async () => (await leftovers()).length === 0, {
    timeoutMs: LOCK_TIME + 2_000,
    everyMs: 50,
    ignoreErrors: true,
  });

  const ops = counters.flatMap(opsOf);
  const enteredAt = (op: OpMessage) => op.startedAt + op.waitMs;
  // The first body on a key of the failed shard that began after the kill: none can begin before the promotion.
  const lockedAgain = ops
    .filter((op) => op.ok && onFailedShard.has(op.key) && enteredAt(op) > killedAt)
    .map(enteredAt)
    .sort((a, b) => a - b)[0];
  const failures = ops.filter((op) => !op.ok);
  const releaseFailedInOutage = holders.map((holder) =>
    lockEvents(holder).some((event) => event.type === 'error' && event.during === 'release' && event.t >= killedAt),
  );
  const freedMs = keysHeld.map(([key]) => (freedAt.has(key) ? freedAt.get(key)! - promotedAt : undefined));
  const perProcess = results.map((result) =>
    Object.values(result.increments as Record<string, number>).reduce((sum, n) => sum + n, 0),
  );
  const lostLeases = workers.flatMap((worker) =>
    lockEvents(worker)
      .filter((event) => event.type === 'lost')
      .map((event) => `${event.key} at kill+${event.t - killedAt} ms`),
  );
  const notes =
    `kill -> promotion ${promotedAt - killedAt} ms (replica ${promotion.node.server.port} of ${victim.server.port}); ` +
    `promotion -> locking on the failed shard again ${lockedAgain === undefined ? 'never' : lockedAgain - promotedAt} ms; ` +
    `promotion -> held keys freed ${freedMs.map((ms) => ms ?? 'never').join(', ')} ms (releases failed ${HOLDER_RELEASES.join(', ')} ms after the kill: ${releaseFailedInOutage}); ` +
    `increments per process ${Math.min(...perProcess)}-${Math.max(...perProcess)}, ${totals.ops} calls, ${failures.length} failed ${JSON.stringify(totals.errors)}; ` +
    `slowest wait ${totals.maxWaitMs} ms, release ${totals.maxReleaseMs} ms; lock events ${JSON.stringify(totals.events)}; took ${Date.now() - startedAt} ms`;
  t.log(notes);

  t.deepEqual(
    exits.map((exit) => exit.code),
    workers.map(() => 0),
    'every worker exits cleanly',
  );
  t.is(overlaps, 0, 'no two bodies ever held the same key at once');
  t.is(
    lost,
    0,
    `counters ${JSON.stringify(state.counters)} equal acknowledged increments ${JSON.stringify(totals.increments)}`,
  );
  t.deepEqual(state.insideLeft, [], 'every body left');
  t.deepEqual(lostLeases, [], 'no lease was lost');
  t.true(lockedAgain !== undefined, 'callers lock keys of the failed shard again after the promotion');
  t.deepEqual(
    failures.filter((op) => !op.error?.isLockError),
    [],
    'every failed call failed with a LockError',
  );
  t.deepEqual(
    releaseFailedInOutage,
    holders.map(() => true),
    "every holder's release failed while its primary was down",
  );
  t.deepEqual(
    freedMs.map((ms) => ms !== undefined && ms <= FREED_WITHIN_MS),
    holders.map(() => true),
    `every held key freed within ${FREED_WITHIN_MS} ms of the promotion: ${freedMs.join(', ')} ms`,
  );
  t.true(clean, `no lock key outlives its lease: ${JSON.stringify(await leftovers())}`);
});
