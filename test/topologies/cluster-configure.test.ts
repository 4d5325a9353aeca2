// configure({ redis }) opens a Redis Cluster from the nodes' URLs or from { cluster, clusterOptions },
// and refuses, with a TypeError that says what, anything that could be read as one server or as a
// cluster, or names a setting a cluster cannot have. A refused call changes nothing.
import test from 'ava';
import { Cluster } from 'ioredis';
import { close, configure, defineLock } from 'lockweave';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { redisServerVersion } from '../helpers/redis-server';

let cluster: RedisCluster;

test.before(async (t) => {
  t.log(`server: ${redisServerVersion()}`);
  cluster = await startRedisCluster();
});
test.after.always(async () => {
  await close();
  await cluster?.stop();
});

const refusals: Array<[string, unknown, RegExp]> = [
  ['an empty list', [], /a list of URLs is empty/],
  ['a URL that is not redis:', ['http://127.0.0.1:7000'], /http: is not redis: or rediss:/],
  [
    'a database other than 0',
    ['redis://127.0.0.1:7000/2'],
    /names database 2, but a Redis Cluster has only database 0/,
  ],
  ['query parameters', ['redis://127.0.0.1:7000?db=1'], /query parameters are not read for a cluster/],
  [
    'URLs that disagree on TLS',
    ['redis://127.0.0.1:7000', 'rediss://127.0.0.1:7001'],
    /disagree on TLS or credentials/,
  ],
  [
    'URLs that disagree on credentials',
    ['redis://:a@127.0.0.1:7000', 'redis://:b@127.0.0.1:7001'],
    /disagree on TLS or credentials \(redis:\/\/…@127/,
  ],
  [
    'a node without a port',
    { cluster: [{ host: '127.0.0.1' }] },
    /`cluster`\[0\] must be a redis:\/\/ URL or \{ host, port \}/,
  ],
  ['`cluster` that is not a list', { cluster: 'redis://127.0.0.1:7000' }, /`cluster` must be a list/],
  [
    "`cluster` beside one server's settings",
    { cluster: ['redis://127.0.0.1:7000'], host: '127.0.0.1' },
    /takes only `cluster` and `clusterOptions`; got also host/,
  ],
  [
    'Cluster settings without `cluster`',
    { startupNodes: [{ host: '127.0.0.1', port: 7000 }] },
    /startupNodes is a Cluster setting, but no `cluster` names the nodes/,
  ],
  [
    'node settings for a cluster without `cluster`',
    { host: '127.0.0.1', redisOptions: {} },
    /redisOptions is a Cluster setting/,
  ],
];

for (const [what, redis, message] of refusals) {
  test(`refuses ${what} with a TypeError at configure()`, (t) => {
    t.throws(() => configure({ redis: redis as string[] }), { instanceOf: TypeError, message });
  });
}

test.serial(
  '{ cluster: [{ host, port }], clusterOptions } opens a Cluster the locks go to; a refused call after it changes nothing',
  async (t) => {
    const [first] = cluster.nodes;
    configure({
      redis: {
        cluster: [{ host: '127.0.0.1', port: first!.server.port }],
        clusterOptions: { redisOptions: { connectionName: 'lockweave-configure-test' } },
      },
    });
    t.throws(() => configure({ redis: { cluster: [] } }), { instanceOf: TypeError });
    const lock = defineLock({ businessFlag: 'configure-cluster' });
    const probe = new Cluster([...cluster.urls]);
    t.teardown(() => probe.disconnect());
    // Keys in every shard: the runtime reaches all three primaries from one startup node.
    for (const value of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const lease = await lock.acquire(value);
      t.is(await probe.get(lease!.key), (lease as unknown as { token: string }).token);
      await lease!.release();
      t.is(await probe.get(lease!.key), null);
    }
    const named = await Promise.all(
      cluster.nodes.map(async (node) =>
        String(await node.admin.call('client', 'list')).includes('name=lockweave-configure-test'),
      ),
    );
    t.true(named.filter(Boolean).length >= 3, `clusterOptions.redisOptions reach the node connections: ${named}`);
    await close();
  },
);

test.serial(
  'an ioredis 6 Cluster passed in locks on every shard (taken by its shape) and is left open by close()',
  async (t) => {
    const { Cluster: Cluster6 } = await import('ioredis6');
    const client = new Cluster6([...cluster.urls], { redisOptions: { autoResendUnfulfilledCommands: false } });
    client.on('error', () => undefined);
    t.teardown(() => client.disconnect());
    configure({ redis: client as never });
    const lock = defineLock({ businessFlag: 'configure-cluster6' });
    for (const value of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const lease = await lock.acquire(value);
      t.is(await client.get(lease!.key), (lease as unknown as { token: string }).token);
      await lease!.release();
      t.is(await client.get(lease!.key), null);
    }
    await close();
    t.is(await client.ping(), 'PONG', "the caller's client is still open");
  },
);
