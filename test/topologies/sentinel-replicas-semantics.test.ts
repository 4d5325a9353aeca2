// The lock's promises on Sentinel with `configure({ defaults: { replicas: 1 } })`: every grant —
// a first SET, a waiter's turn in line, a hand-over between callers of one process — waits for the
// replica (WAIT) before the body runs, and nothing else about the lock changes.
import test from 'ava';
import { Redis } from 'ioredis';
import { close, configure, defineLock, type LockEvent } from 'lockweave';
import { redisServerVersion } from '../helpers/redis-server';
import { startSentinelTopology, type SentinelTopology } from '../helpers/redis-sentinel';
import { lockSemantics } from '../runtime/lock-semantics';

const events: LockEvent[] = [];
let topology: SentinelTopology;
let redis: Redis;
let replica: Redis;

test.before(async (t) => {
  t.log(`server: ${redisServerVersion()}`);
  topology = await startSentinelTopology();
  redis = new Redis(topology.primary.url);
  replica = new Redis(topology.replica.url);
  configure({ redis: topology.sentinelOptions, defaults: { replicas: 1 }, logger: (event) => events.push(event) });
});

test.after.always(async () => {
  await close();
  redis?.disconnect();
  replica?.disconnect();
  await topology?.stop();
});

lockSemantics(test, () => ({
  holder: (key) => redis.get(key),
  pttl: (key) => redis.pttl(key),
  events,
}));

test('each holder of a contended key finds its grant on the replica when its body starts', async (t) => {
  const lock = defineLock({ businessFlag: 'replicated-turns', retries: 20, waitTime: 1_000 });
  const missing: string[] = [];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let i = 0; i < 5; i++) {
        const lease = (await lock.acquire('K'))!;
        if ((await replica.get(lease.key)) !== (lease as { token: string }).token) missing.push(lease.key);
        await lease.release();
      }
    }),
  );
  t.deepEqual(missing, [], 'every grant was on the replica before its body ran');
});
