// The shared lock semantics (test/runtime/lock-semantics.ts) on a real Redis Cluster (3 primaries,
// 3 replicas) through a cluster client the test connected as a user would — node-redis's
// `createCluster` (5 or 6), Valkey GLIDE's GlideClusterClient — with an ioredis Cluster beside it
// for looking at keys. One test file per client: configure() is process-wide.
import type { TestFn } from 'ava';
import { Cluster } from 'ioredis';
import type { NodeRedisClusterLike } from 'lockweave';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { lockSemanticsThrough, type ConnectedClient } from '../runtime/client-fixture';

export function clusterClientLockSemantics(
  test: TestFn,
  connect: (cluster: RedisCluster) => Promise<ConnectedClient>,
): void {
  lockSemanticsThrough(test, async () => {
    const cluster = await startRedisCluster();
    return { connected: await connect(cluster), look: new Cluster([...cluster.urls]), stop: () => cluster.stop() };
  });
}

type NodeRedisCluster = NodeRedisClusterLike & {
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
};
type CreateCluster = (options: { rootNodes: Array<{ url: string }> }) => NodeRedisCluster;

/** A node-redis cluster of the version `createCluster` comes from, connected as a user would. */
export function nodeRedisCluster(createCluster: CreateCluster): (cluster: RedisCluster) => Promise<ConnectedClient> {
  return async (cluster) => {
    const client = createCluster({ rootNodes: cluster.urls.map((url) => ({ url })) });
    client.on('error', () => undefined);
    await client.connect();
    return { client, close: () => client.destroy() };
  };
}
