// A Redis Cluster of one server holding every slot: a cluster node's own answers (no SELECT in
// cluster mode) and a Cluster client that locks, without the six servers of redis-cluster.ts.
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redis-server';
import { until } from './time';

export async function startSingleNodeCluster(): Promise<RedisServer> {
  const server = await startRedisServer([
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    // Alone, a node never learns its own address (no MEET): CLUSTER SLOTS would name it "", which a client cannot reach.
    '--cluster-announce-ip',
    '127.0.0.1',
  ]);
  const admin = new Redis(server.url);
  try {
    await admin.call('cluster', 'addslotsrange', 0, 16383);
    await until(async () => /^cluster_state:ok/m.test(String(await admin.call('cluster', 'info'))), {
      what: 'a one-node cluster: cluster_state:ok',
      everyMs: 50,
    });
    return server;
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    admin.disconnect();
  }
}
