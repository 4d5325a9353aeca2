// Option `replicas`: a grant counts once that many replicas have it (Redis WAIT). Here on one
// redis-server, which has no replica: every grant asked to reach one is given back and fails,
// saying how many acknowledged. Replicas that do acknowledge, and the failover the option is
// for, are test/topologies/sentinel-replicas.test.ts's.
import test from 'ava';
import {
  configure,
  defineLock,
  LockAcquireError,
  MemoryLockStore,
  RedisLockStore,
  withLock,
  type LockEvent,
} from 'lockweave';
import { useRedis, uniqueId } from '../helpers/redis-fixture';

const events: LockEvent[] = [];
const fixture = useRedis(test, { logger: (event) => events.push(event) });

test.serial(
  'replicas=1 with no replica: the acquire fails saying 0 of 1 acknowledged, and the key is given back',
  async (t) => {
    const lock = defineLock({ businessFlag: uniqueId('noreplica'), replicas: 1, waitTime: 300 });
    const startedAt = Date.now();
    const error = await t.throwsAsync(lock.acquire('A'), { instanceOf: LockAcquireError });
    const tookMs = Date.now() - startedAt;
    t.regex(
      error!.message,
      /after 1 attempt\(s\) .*0 of 1 replica\(s\) acknowledged the grant within 300 ms \(WAIT\); it was given back/,
    );
    t.is(await fixture.redis.get(lock.keyFor('A')), null, 'the grant was given back');
    t.true(tookMs >= 250 && tookMs < 10_000, `WAIT waits min(waitTime, lockTime / 3, 1 s) = 300 ms; took ${tookMs}`);
    t.true(events.some((event) => event.type === 'released' && event.key === lock.keyFor('A')));
  },
);

test.serial('replicas=1 with no replica: onFail=skip resolves undefined; the body does not run', async (t) => {
  let ran = false;
  const result = await withLock(
    { businessFlag: 'noreplica-skip', key: 'A', replicas: 1, waitTime: 100, onFail: 'skip' },
    () => (ran = true),
  );
  t.is(result, undefined);
  t.false(ran);
});

test.serial(
  'configure({ defaults: { replicas } }) applies to every lock; a tag (spec) of replicas=0 overrides it',
  async (t) => {
    try {
      configure({ defaults: { replicas: 1, waitTime: 100 } });
      await t.throwsAsync(
        withLock({ businessFlag: 'defaults-replicas', key: 'A' }, () => 'ran'),
        { message: /0 of 1 replica/ },
      );
      t.is(await withLock({ businessFlag: 'defaults-replicas', key: 'A', replicas: 0 }, () => 'ran'), 'ran');
    } finally {
      configure({ defaults: { replicas: 0, waitTime: 5_000 } });
    }
  },
);

test.serial('replicas that is not a whole number >= 0 is refused before any attempt', async (t) => {
  for (const bad of [-1, 1.5, Number.NaN, '1' as unknown as number]) {
    t.throws(
      () => defineLock({ businessFlag: 'bad-replicas', replicas: bad }),
      { instanceOf: TypeError, message: /option replicas must be a whole number >= 0/ },
      String(bad),
    );
  }
  t.throws(() => configure({ defaults: { replicas: -1 } }), { message: /option replicas must be a whole number >= 0/ });
});

test.serial(
  'on the in-process store replicas is met: code unit-tested there runs as on Redis with its replicas up',
  async (t) => {
    try {
      configure({ store: new MemoryLockStore() });
      t.is(await withLock({ businessFlag: 'memory-replicas', key: 'A', replicas: 2 }, () => 'ran'), 'ran');
    } finally {
      configure({ redis: fixture.server.url });
    }
  },
);

test.serial(
  'on an ioredis Cluster replicas > 0 is refused, not sent to whichever node (WAIT names no key)',
  async (t) => {
    const { Cluster } = await import('ioredis');
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    const store = new RedisLockStore(cluster);
    await t.throwsAsync(store.waitForReplicas(1, 100), {
      instanceOf: TypeError,
      message: /replicas > 0 is not supported on Redis Cluster/,
    });
    await store.close();
    cluster.disconnect();
  },
);

test.serial('through a node-redis client too: WAIT is sent and its count read', async (t) => {
  const { createClient } = await import('redis');
  const client = createClient({ url: fixture.server.url });
  await client.connect();
  try {
    configure({ redis: client });
    await t.throwsAsync(
      withLock({ businessFlag: 'node-redis-replicas', key: 'A', replicas: 1, waitTime: 200 }, () => 'ran'),
      {
        message: /0 of 1 replica\(s\) acknowledged the grant within 200 ms \(WAIT\)/,
      },
    );
    t.is(await fixture.redis.get('LOCK_node_redis_replicas_A'), null);
  } finally {
    configure({ redis: fixture.server.url });
    client.destroy();
  }
});
