// Option `replicas` on Sentinel: the failover it is for, made to happen every time.
//
// With asynchronous replication a grant the replica has not received when the primary dies is
// lost with it: the promoted replica gives the key to the next caller while the first still holds
// it. Here that is made certain, not left to a race: the replica is SIGSTOPped and the primary
// drops its connection (CLIENT KILL TYPE replica), so nothing written after that reaches it; the
// lock is taken; the primary is SIGKILLed, the replica SIGCONTed, and the Sentinels promote it.
//   - without `replicas`: a second caller gets the key while the first still holds it;
//   - with `replicas=1`: the first caller's acquire fails (0 of 1 replicas acknowledged), and the
//     key was given back — nobody ever held it twice.
// And what replicas=1 costs an uncontended acquire on a healthy topology: one WAIT per grant, and
// none without it (asserted, from the primary's command counts); the time it adds is logged, not asserted.
import test from 'ava';
import { Redis } from 'ioredis';
import { close, configure, defineLock, LockAcquireError, type Lease } from 'lockweave';
import { redisServerVersion } from '../helpers/redis-server';
import { startSentinelTopology, type SentinelTopology } from '../helpers/redis-sentinel';

const topologies: SentinelTopology[] = [];
const paused = new Set<number>();

test.before(async (t) => {
  t.log(`server: ${redisServerVersion()}`);
});

test.after.always(async () => {
  await close();
  for (const pid of paused) process.kill(pid, 'SIGCONT');
  await Promise.all(topologies.map((topology) => topology.stop()));
});

async function started(): Promise<SentinelTopology> {
  const topology = await startSentinelTopology();
  topologies.push(topology);
  return topology;
}

/** Nothing written to the primary from now on reaches the replica. */
async function cutReplication(topology: SentinelTopology): Promise<void> {
  process.kill(topology.replica.pid, 'SIGSTOP');
  paused.add(topology.replica.pid);
  const primary = new Redis(topology.primary.url);
  try {
    await primary.call('CLIENT', 'KILL', 'TYPE', 'replica');
  } finally {
    primary.disconnect();
  }
}

/** SIGKILLs the primary, lets the replica run again, and waits until the Sentinels have promoted it. */
async function failOver(topology: SentinelTopology): Promise<{ formerPort: number; promotionMs: number }> {
  const formerPort = topology.primary.port;
  const replicaPid = topology.replica.pid;
  const killedAt = await topology.killPrimary();
  process.kill(replicaPid, 'SIGCONT');
  paused.delete(replicaPid);
  const promotedAt = await topology.waitForPromotion(formerPort);
  return { formerPort, promotionMs: promotedAt - killedAt };
}

const options = { lockTime: 30_000, retries: 0, waitTime: 1_000 };
const second = defineLock({ businessFlag: 'failover', lockTime: 30_000, retries: 30, waitTime: 500 });

test.serial(
  'without replicas, a grant the replica never got is lost in the failover: a second caller holds the key beside the first',
  async (t) => {
    const topology = await started();
    configure({ redis: topology.sentinelOptions });
    const first = defineLock({ businessFlag: 'failover', ...options });
    await (await first.acquire('warm-up'))!.release();
    await cutReplication(topology);
    const held = (await first.acquire('K')) as Lease;
    const { promotionMs } = await failOver(topology);
    const startedAt = Date.now();
    const other = (await second.acquire('K')) as Lease;
    t.log(
      `kill → promotion ${promotionMs} ms; the second caller had the key ${Date.now() - startedAt} ms after the promotion`,
    );
    t.true(held.held, 'the first caller still holds its lease, as far as it can know');
    t.truthy(other, 'and the second caller got the same key: two holders at once');
    t.is(other.key, held.key);
    await other.release();
    await held.release();
    await close();
  },
);

test.serial(
  'with replicas=1 the same grant is given back and the first acquire fails: the key is never held twice',
  async (t) => {
    const topology = await started();
    configure({ redis: topology.sentinelOptions });
    const first = defineLock({ businessFlag: 'failover', ...options, replicas: 1 });
    await (await first.acquire('warm-up'))!.release();
    await cutReplication(topology);
    const primary = new Redis(topology.primary.url);
    const error = await t.throwsAsync(first.acquire('K'), { instanceOf: LockAcquireError });
    t.regex(error!.message, /0 of 1 replica\(s\) acknowledged the grant within 1000 ms \(WAIT\); it was given back/);
    t.is(await primary.get(first.keyFor('K')), null, 'the grant was given back on the primary before it died');
    primary.disconnect();
    const { formerPort, promotionMs } = await failOver(topology);
    const other = (await second.acquire('K')) as Lease;
    t.truthy(other, 'the second caller gets the key; nobody else held it');
    await other.release();
    // The promoted primary has no replica until the old one comes back: replicas=1 fails until then.
    const withReplica = defineLock({
      businessFlag: 'failover',
      lockTime: 30_000,
      retries: 0,
      waitTime: 500,
      replicas: 1,
    });
    await t.throwsAsync(withReplica.acquire('K'), { message: /0 of 1 replica/ });
    await topology.restartAsReplica(topology.servers.find((server) => server.port === formerPort)!);
    let lease: Lease | undefined;
    const deadline = Date.now() + 30_000;
    while (!lease && Date.now() < deadline)
      lease = (await withReplica.acquire('K').catch(() => undefined)) as Lease | undefined;
    t.truthy(lease, 'with the old primary back as a replica, replicas=1 locks again');
    await lease?.release();
    t.log(`kill → promotion ${promotionMs} ms`);
    await close();
  },
);

test.serial(
  'the cost of replicas=1 on an uncontended acquire: one more round trip (WAIT) per grant, none without it',
  async (t) => {
    const topology = await started();
    configure({ redis: topology.sentinelOptions });
    const primary = new Redis(topology.primary.url);
    /** How many WAIT commands the primary has run. */
    const waits = async () => Number(/^cmdstat_wait:calls=(\d+)/m.exec(await primary.info('commandstats'))?.[1] ?? 0);
    const runs = 400;
    const measure = async (replicas: number) => {
      const lock = defineLock({ businessFlag: `cost-${replicas}`, replicas });
      await (await lock.acquire('warm-up'))!.release();
      const waitsBefore = await waits();
      const startedAt = process.hrtime.bigint();
      for (let i = 0; i < runs; i++) await (await lock.acquire(`k${i % 8}`))!.release();
      const ms = Number(process.hrtime.bigint() - startedAt) / 1e6 / runs;
      const sent = (await waits()) - waitsBefore;
      if (replicas === 0) t.is(sent, 0, 'replicas=0 sends no WAIT');
      else t.true(sent >= runs, `replicas=1 sends a WAIT for each of the ${runs} grants (sent ${sent})`);
      return ms;
    };
    const results: Record<string, number[]> = { 0: [], 1: [] };
    for (let round = 0; round < 3; round++)
      for (const replicas of [0, 1]) results[replicas].push(await measure(replicas));
    primary.disconnect();
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1];
    t.log(
      `acquire + release, sequential, ${runs} × 3 rounds: replicas=0 ${median(results[0]).toFixed(3)} ms, ` +
        `replicas=1 ${median(results[1]).toFixed(3)} ms (×${(median(results[1]) / median(results[0])).toFixed(2)}); ` +
        'round trips: SET, release — and WAIT with replicas=1',
    );
    await close();
  },
);
