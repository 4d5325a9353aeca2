// A Redis Cluster (3 primaries, 3 replicas) whose every node sits behind a fault proxy
// (test/helpers/fault-proxy.ts) and announces the proxy's port as its own (cluster-announce-port):
// a Cluster client learns the proxies' addresses from the cluster, so each of its connections can
// be cut, stalled or robbed of a reply. Beside it, the test's own ioredis Cluster, which goes around
// the proxies (natMap) to look at keys. No node fails over: the first shard's slots stay the first node's.
import type { TestFn } from 'ava';
import { Cluster } from 'ioredis';
import { close } from 'lockweave';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { until } from '../helpers/time';

export interface ClusterBehindProxies {
  readonly cluster: RedisCluster;
  /** One a node, in the order of cluster.nodes. */
  readonly proxies: readonly FaultProxy[];
  /** The test's own view, not through the proxies. */
  readonly look: Cluster;
  stop(): Promise<void>;
}

export async function startClusterBehindProxies(): Promise<ClusterBehindProxies> {
  const cluster = await startRedisCluster();
  const proxies = await Promise.all(
    cluster.nodes.map((node) => startFaultProxy({ host: node.server.host, port: node.server.port })),
  );
  await Promise.all(
    cluster.nodes.map((node, index) => node.admin.config('SET', 'cluster-announce-port', String(proxies[index]!.port))),
  );
  const proxyPorts = new Set(proxies.map((proxy) => proxy.port));
  await until(
    async () => {
      const views = await Promise.all(cluster.nodes.map((node) => node.admin.call('cluster', 'slots')));
      return views.every((slots) =>
        (slots as Array<Array<unknown>>).every((range) =>
          range.slice(2).every((node) => proxyPorts.has(Number((node as unknown[])[1]))),
        ),
      );
    },
    { what: 'every node announcing its proxy', timeoutMs: 20_000, everyMs: 50 },
  );
  const look = new Cluster([...cluster.urls], {
    natMap: Object.fromEntries(
      cluster.nodes.map((node, index) => [
        `127.0.0.1:${proxies[index]!.port}`,
        { host: node.server.host, port: node.server.port },
      ]),
    ),
  });
  look.on('error', () => undefined);
  return {
    cluster,
    proxies,
    look,
    async stop() {
      look.disconnect();
      await Promise.all(proxies.map((proxy) => proxy.close()));
      await cluster.stop();
    },
  };
}

/** The proxied Cluster of a test file: started before its tests; the runtime closed and everything stopped after them. */
export function useClusterBehindProxies(test: TestFn): () => ClusterBehindProxies {
  let topology: ClusterBehindProxies | undefined;
  test.before(async () => {
    topology = await startClusterBehindProxies();
  });
  test.after.always(async () => {
    await close();
    await topology?.stop();
  });
  return () => topology!;
}
