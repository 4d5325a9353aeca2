// The shared lock semantics (test/runtime/lock-semantics.ts) on a real Redis Cluster through a
// node-redis cluster (`createCluster`) the test connected, as a user would; one test file per
// node-redis version (configure() is process-wide).
import type { TestFn } from 'ava';
import { Cluster } from 'ioredis';
import { close, configure, type LockEvent, type NodeRedisClusterLike } from 'lockweave';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { redisServerVersion } from '../helpers/redis-server';
import { lockSemantics } from '../runtime/lock-semantics';

type NodeRedisCluster = NodeRedisClusterLike & {
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
};
type CreateCluster = (options: { rootNodes: Array<{ url: string }> }) => NodeRedisCluster;

export function nodeRedisClusterLockSemantics(test: TestFn, createCluster: CreateCluster): void {
  const events: LockEvent[] = [];
  const fixture = {} as { cluster: RedisCluster; client: NodeRedisCluster; probe: Cluster };
  test.before(async (t) => {
    t.log(`server: ${redisServerVersion()}`);
    fixture.cluster = await startRedisCluster();
    fixture.client = createCluster({ rootNodes: fixture.cluster.urls.map((url) => ({ url })) });
    fixture.client.on('error', () => undefined);
    await fixture.client.connect();
    fixture.probe = new Cluster([...fixture.cluster.urls]);
    configure({ redis: fixture.client, logger: (event) => events.push(event) });
  });
  test.after.always(async () => {
    await close();
    fixture.client?.destroy();
    fixture.probe?.disconnect();
    await fixture.cluster?.stop();
  });
  lockSemantics(test, () => ({
    holder: (key) => fixture.probe.get(key),
    pttl: (key) => fixture.probe.pttl(key),
    events,
  }));
}
