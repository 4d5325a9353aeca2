// The shared lock semantics (test/runtime/lock-semantics.ts) on a real Redis Cluster (3 primaries,
// 3 replicas) through a cluster client the test connected as a user would — node-redis's
// `createCluster` (5 or 6), Valkey GLIDE's GlideClusterClient — with an ioredis Cluster beside it
// for looking at keys. One test file per client: configure() is process-wide. And every Cluster
// client a user may pass, for the files that try each in turn (everyClusterClient).
import { GlideClusterClient } from '@valkey/valkey-glide';
import type { ExecutionContext, TestFn } from 'ava';
import { Cluster } from 'ioredis';
import { close, configure, type ConfigureOptions, type NodeRedisClusterLike } from 'lockweave';
import { createCluster as createCluster6 } from 'redis';
import { createCluster as createCluster5 } from 'redis5';
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
export function nodeRedisCluster(
  createCluster: CreateCluster,
): (cluster: Pick<RedisCluster, 'urls'>) => Promise<ConnectedClient> {
  return async (cluster) => {
    const client = createCluster({ rootNodes: cluster.urls.map((url) => ({ url })) });
    client.on('error', () => undefined);
    await client.connect();
    return { client, close: () => client.destroy() };
  };
}

/**
 * Every Cluster client a user may pass to configure(), by name, each connected as a user would to
 * the startup nodes `urls` (read when it connects).
 */
export function everyClusterClient(urls: () => readonly string[]): Record<string, () => Promise<ConnectedClient>> {
  return {
    'an ioredis Cluster': async () => {
      const client = new Cluster([...urls()], { redisOptions: { autoResendUnfulfilledCommands: false } });
      client.on('error', () => undefined);
      return { client, close: () => client.disconnect() };
    },
    'a node-redis 6 cluster': () => nodeRedisCluster(createCluster6)({ urls: urls() }),
    'a node-redis 5 cluster': () => nodeRedisCluster(createCluster5)({ urls: urls() }),
    'a GLIDE GlideClusterClient': async () => {
      const addresses = urls().map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) }));
      const client = await GlideClusterClient.createClient({ addresses, requestTimeout: 2_000 });
      return { client, close: () => client.close() };
    },
  };
}

/**
 * The runtime configured on `connect`'s client (and `options`) for the rest of the test; closed, and
 * the client ended, after it.
 */
export async function configuredThrough(
  t: ExecutionContext,
  connect: () => Promise<ConnectedClient>,
  options: Omit<ConfigureOptions, 'redis'> = {},
): Promise<void> {
  const connected = await connect();
  t.teardown(async () => {
    await close();
    connected.close();
  });
  configure({ ...options, redis: connected.client });
}

/** How a call ended, as text: `resolved <value>`, or the error's name and message. */
export const outcome = (call: Promise<unknown>): Promise<string> =>
  call.then(
    (value) => `resolved ${String(value)}`,
    (error: Error) => `${error.name}: ${error.message}`,
  );
