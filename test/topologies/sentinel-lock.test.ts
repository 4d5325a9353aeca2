// The lock's promises on a Sentinel topology, through the client the runtime opens from
// `configure({ redis: { sentinels, name } })`, and through an ioredis Sentinel client passed in.
// The failovers themselves are sentinel-failover.test.ts's.
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { close, configure, defineLock, LockAcquireError, RedisConnectionError, type LockEvent } from 'lockweave';
import { redisServerVersion } from '../helpers/redis-server';
import { startSentinelTopology, type SentinelTopology } from '../helpers/redis-sentinel';
import { lockSemantics } from '../runtime/lock-semantics';

const events: LockEvent[] = [];
let topology: SentinelTopology;
let redis: Redis;

test.before(async (t) => {
  t.log(`server: ${redisServerVersion()}`);
  topology = await startSentinelTopology();
  redis = new Redis(topology.primary.url);
  configure({ redis: topology.sentinelOptions, logger: (event) => events.push(event) });
});

test.after.always(async () => {
  await close();
  redis?.disconnect();
  await topology?.stop();
});

lockSemantics(test, () => ({
  holder: (key) => redis.get(key),
  pttl: (key) => redis.pttl(key),
  events,
}));

test.serial('the lock is taken on the primary the Sentinels name, and reaches the replica', async (t) => {
  const lock = defineLock({ businessFlag: 'sentinel-where' });
  const lease = await lock.acquire('A');
  const replica = new Redis(topology.replica.url);
  try {
    t.is(await redis.get(lease!.key), (lease as { token: string }).token);
    t.is(await redis.call('WAIT', 1, 2_000), 1);
    t.is(await replica.get(lease!.key), (lease as { token: string }).token);
  } finally {
    await lease!.release();
    replica.disconnect();
  }
});

test.serial('an ioredis Sentinel client passed in locks on the primary and is left open by close()', async (t) => {
  const client = new Redis({ ...topology.sentinelOptions });
  client.on('error', () => undefined);
  try {
    configure({ redis: client });
    const lock = defineLock({ businessFlag: 'sentinel-passed-in' });
    const lease = await lock.acquire('A');
    t.is(await redis.get(lease!.key), (lease as { token: string }).token);
    await lease!.release();
    t.is(await redis.get(lease!.key), null);
    await close();
    t.is(await client.ping(), 'PONG');
  } finally {
    configure({ redis: topology.sentinelOptions, logger: (event) => events.push(event) });
    client.disconnect();
  }
});

test.serial(
  'Sentinels that do not answer: the error names the primary asked for and the Sentinels, within the wait bound',
  async (t) => {
    try {
      configure({ redis: { sentinels: [{ host: '127.0.0.1', port: 1 }], name: 'nowhere' } });
      const lock = defineLock({ businessFlag: 'sentinel-unreachable', retries: 1, waitTime: 500 });
      const startedAt = Date.now();
      const error = await t.throwsAsync(lock.acquire('A'), { instanceOf: LockAcquireError });
      t.true(Date.now() - startedAt < 10_000, `failed after ${Date.now() - startedAt} ms`);
      t.true(error!.cause instanceof RedisConnectionError, String(error!.cause));
      t.regex(error!.message, /nowhere of Sentinels 127\.0\.0\.1:1/);
    } finally {
      await close();
      configure({ redis: topology.sentinelOptions, logger: (event) => events.push(event) });
    }
  },
);

test.serial('a node-redis Sentinel client (createSentinel) is refused with a TypeError, not read as a client', (t) => {
  for (const family of ['redis', 'redis5']) {
    const { createSentinel } = require(family) as typeof import('redis');
    const sentinel = createSentinel({
      name: topology.sentinelOptions.name,
      sentinelRootNodes: topology.sentinelOptions.sentinels,
    });
    t.throws(
      () => configure({ redis: sentinel as never }),
      { instanceOf: TypeError, message: /node-redis Sentinel client \(createSentinel\)/ },
      family,
    );
  }
});

test('a process locking through Sentinel options exits by itself without close(), the Sentinels up or all gone', async (t) => {
  const program = join(__dirname, 'programs', 'sentinel-lock-and-exit.js');
  const gone = { sentinels: [{ host: '127.0.0.1', port: 1 }], name: 'gone' };
  for (const [options, expected] of [
    [topology.sentinelOptions, /^LOCK_sentinelExit_A$/],
    [gone, /could not acquire .*Sentinels 127\.0\.0\.1:1 is unreachable: no Sentinel named a primary/],
  ] as const) {
    // A process kept alive by a connection would be killed at the timeout, and execFile reject.
    const { stdout } = await promisify(execFile)(process.execPath, [program, JSON.stringify(options)], {
      timeout: 20_000,
    });
    t.regex(stdout.trim(), expected);
  }
});

test.serial(
  'a Sentinel that takes connections but never answers (SIGSTOPped) does not stall the client: the next one is asked',
  async (t) => {
    const [stalled] = topology.sentinels;
    process.kill(stalled.pid, 'SIGSTOP');
    try {
      configure({ redis: topology.sentinelOptions, logger: (event) => events.push(event) });
      const lock = defineLock({ businessFlag: 'sentinel-stalled', retries: 10, waitTime: 1_000 });
      const startedAt = Date.now();
      const lease = await lock.acquire('A');
      t.log(`locked ${Date.now() - startedAt} ms after configure() with the first Sentinel stalled`);
      t.is(await redis.get(lease!.key), (lease as { token: string }).token);
      await lease!.release();
    } finally {
      process.kill(stalled.pid, 'SIGCONT');
    }
  },
);
