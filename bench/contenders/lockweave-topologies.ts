// lockweave on the other clients and topologies it supports, for bench/topologies.ts: the same
// woven BenchService as the headline contender, configured on a node-redis client, a Valkey GLIDE
// client (each on the single server and on the Cluster), a Redis Cluster (3 primaries + 3 replicas) or
// Redlock over 3 independent primaries. The scenario's body (the
// hot key's counter) stays on the single server of the run; only the lock moves. The servers'
// URLs come from the parent in BENCH_CLUSTER_URLS and BENCH_REDLOCK_URLS.
import { Redis } from 'ioredis';
import { close, configure } from 'lockweave/runtime';
import { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { createClient, createCluster } from 'redis';
import { BenchService, isWoven, TAGGED_SETTINGS } from './lockweave-tagged';
import type { Contender } from './contender';
import { urlsFrom } from './topology-servers';

function woven(
  name: string,
  settings: string,
  configureFor: (client: Redis) => Promise<() => Promise<void>>,
): () => Contender {
  return () => {
    const service = new BenchService();
    let closeClient: () => Promise<void> = async () => undefined;
    return {
      name,
      settings: `${settings}; @redisLock ${TAGGED_SETTINGS}; woven by tspc`,
      async setup(client) {
        if (!isWoven())
          throw new Error('the topology contenders need the woven build (npm run bench builds it with tspc)');
        closeClient = await configureFor(client);
      },
      lock: (key, body) => service.critical(key, body),
      async teardown() {
        await close();
        await closeClient();
      },
    };
  };
}

export const createLockweaveOwned = woven(
  'lockweave, its own connection',
  'configure({ redis: URL }): the runtime opens its ioredis client (its settings: no auto-pipelining, a command timeout)',
  async (client) => {
    configure({ redis: `redis://${client.options.host ?? '127.0.0.1'}:${client.options.port}` });
    return async () => undefined;
  },
);

export const createLockweaveAutoPipelining = woven(
  'lockweave, a client with auto-pipelining',
  "configure({ redis: new Redis({ enableAutoPipelining: true }) }): the user's ioredis client, auto-pipelining on",
  async (client) => {
    const own = new Redis({ host: client.options.host, port: client.options.port, enableAutoPipelining: true });
    configure({ redis: own });
    return async () => own.disconnect();
  },
);

export const createLockweaveNodeRedis = woven(
  'lockweave on node-redis',
  'configure({ redis: createClient() of redis 6, connected })',
  async (client) => {
    const nodeRedis = createClient({ socket: { host: client.options.host, port: client.options.port } });
    nodeRedis.on('error', () => undefined);
    await nodeRedis.connect();
    configure({ redis: nodeRedis });
    return async () => void (await nodeRedis.close());
  },
);

export const createLockweaveGlide = woven(
  'lockweave on GLIDE',
  'configure({ redis: await GlideClient.createClient() of @valkey/valkey-glide 2 })',
  async (client) => {
    const glide = await GlideClient.createClient({
      addresses: [{ host: client.options.host ?? '127.0.0.1', port: client.options.port }],
      requestTimeout: 2_000,
    });
    configure({ redis: glide });
    return async () => glide.close();
  },
);

export const createLockweaveGlideCluster = woven(
  'lockweave on GLIDE, Cluster',
  'configure({ redis: await GlideClusterClient.createClient() with the 6 nodes })',
  async () => {
    const addresses = urlsFrom('BENCH_CLUSTER_URLS').map((url) => {
      const { hostname, port } = new URL(url);
      return { host: hostname, port: Number(port) };
    });
    const glide = await GlideClusterClient.createClient({ addresses, requestTimeout: 2_000 });
    configure({ redis: glide });
    return async () => glide.close();
  },
);

export const createLockweaveNodeRedisCluster = woven(
  'lockweave on node-redis, Cluster',
  'configure({ redis: createCluster() of redis 6 with the 6 nodes, connected })',
  async () => {
    const cluster = createCluster({ rootNodes: urlsFrom('BENCH_CLUSTER_URLS').map((url) => ({ url })) });
    cluster.on('error', () => undefined);
    await cluster.connect();
    configure({ redis: cluster });
    return async () => void (await cluster.close());
  },
);

export const createLockweaveCluster = woven(
  'lockweave on Redis Cluster',
  'configure({ redis: [6 node URLs] }) (3 primaries + 3 replicas)',
  async () => {
    configure({ redis: urlsFrom('BENCH_CLUSTER_URLS') });
    return async () => undefined;
  },
);

export const createLockweaveRedlock = woven(
  'lockweave on Redlock ×3',
  'configure({ redlock: [3 primary URLs], defaults: { redlock: true } })',
  async (client) => {
    configure({ redis: client, redlock: urlsFrom('BENCH_REDLOCK_URLS'), defaults: { redlock: true } });
    return async () => undefined;
  },
);
