// A throwaway Redis Cluster for one test file: six servers (startRedisServer, so Valkey runs
// too) in cluster mode — three primaries with a third of the slots each, and one replica of each —
// formed with CLUSTER ADDSLOTSRANGE, MEET and REPLICATE sent by a plain client (no redis-cli).
//
// `cluster-node-timeout` is 1 s, so a killed primary is failed over in a second or two. Each server
// keeps its nodes.conf in its own working directory; only the processes started here are stopped.
import type { TestFn } from 'ava';
import { Cluster, Redis } from 'ioredis';
import { close, configure, type ConfigureOptions } from 'lockweave';
import { slotOf } from '../../runtime/store/cluster-slot';
import { redisServerVersion, startRedisServer, type RedisServer } from './redis-server';
import { until } from './time';

export interface ClusterNode {
  readonly server: RedisServer;
  /** Its cluster node id. */
  readonly id: string;
  /** The client the harness talks to it with; not the runtime's. */
  readonly admin: Redis;
}

export interface Promotion {
  /** The replica that took over. */
  readonly node: ClusterNode;
  /** When the replica first said it was a primary with the cluster state ok (polled every 20 ms). */
  readonly promotedAt: number;
}

export interface Kill {
  /** When the primary's process had exited. */
  readonly killedAt: number;
  /** Resolves once one of its replicas is primary (rejects past the timeout). */
  readonly promotion: Promise<Promotion>;
}

export interface RedisCluster {
  readonly nodes: readonly ClusterNode[];
  /** Every node's redis:// URL: the startup nodes a client is given. */
  readonly urls: readonly string[];
  /** The primary that serves `key`'s slot now. */
  primaryOf(key: string): Promise<ClusterNode>;
  /** SIGKILLs `primary`; its promotion is awaited (up to `timeoutMs`) apart. */
  killPrimary(primary: ClusterNode, timeoutMs?: number): Promise<Kill>;
  /** Sum over the live nodes of `cluster_stats_messages_<type>_sent` (e.g. publish, publishshard). */
  messagesSent(type: string): Promise<number>;
  stop(): Promise<void>;
}

export const CLUSTER_NODE_TIMEOUT_MS = 1_000;
const FORM_TIMEOUT_MS = 30_000;
const SLOT_RANGES = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
] as const;

function info(text: string, field: string): string | undefined {
  return text.match(new RegExp(`^${field}:(\\S+)`, 'm'))?.[1];
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const servers: RedisServer[] = [];
  const admins: Redis[] = [];
  const dead = new Set<ClusterNode>();
  const stopAll = async () => {
    admins.forEach((admin) => admin.disconnect());
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    for (let index = 0; index < 6; index++) {
      servers.push(
        await startRedisServer([
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          String(CLUSTER_NODE_TIMEOUT_MS),
        ]),
      );
    }
    const nodes: ClusterNode[] = [];
    for (const server of servers) {
      // Reconnecting: a node drops its clients when it turns replica. A killed node's is disconnected.
      const admin = new Redis({
        host: server.host,
        port: server.port,
        retryStrategy: () => 100,
        maxRetriesPerRequest: 2,
        commandTimeout: 5_000,
      });
      admin.on('error', () => undefined);
      admins.push(admin);
      nodes.push({ server, admin, id: String(await admin.call('cluster', 'myid')) });
    }
    const [first] = nodes;
    for (const [index, [from, to]] of SLOT_RANGES.entries())
      await nodes[index]!.admin.call('cluster', 'addslotsrange', from, to);
    for (const node of nodes.slice(1)) await first!.admin.call('cluster', 'meet', '127.0.0.1', node.server.port);
    await until(
      async () => {
        const views = await Promise.all(nodes.map((node) => node.admin.call('cluster', 'nodes') as Promise<string>));
        return views.every(
          (view) =>
            view
              .trim()
              .split('\n')
              .filter((line) => !/fail|handshake|noaddr/.test(line.split(' ')[2]!)).length === 6,
        );
      },
      {
        what: 'redis cluster: every node meeting every other',
        timeoutMs: FORM_TIMEOUT_MS,
        everyMs: 50,
        ignoreErrors: true,
      },
    );
    for (let index = 3; index < 6; index++)
      await nodes[index]!.admin.call('cluster', 'replicate', nodes[index - 3]!.id);
    await until(
      async () => {
        const states = await Promise.all(nodes.map((node) => node.admin.call('cluster', 'info') as Promise<string>));
        if (!states.every((state) => info(state, 'cluster_state') === 'ok')) return false;
        const links = await Promise.all(nodes.slice(3).map((node) => node.admin.info('replication')));
        if (!links.every((link) => info(link, 'master_link_status') === 'up')) return false;
        // Every node must see the replicas as replicas, or a failover could wait for its gossip.
        const views = await Promise.all(nodes.map((node) => node.admin.call('cluster', 'nodes') as Promise<string>));
        return views.every(
          (view) =>
            view
              .trim()
              .split('\n')
              .filter((line) => line.split(' ')[2]!.split(',').includes('slave')).length === 3,
        );
      },
      {
        what: 'redis cluster: cluster_state:ok on every node with three replicas in sync',
        timeoutMs: FORM_TIMEOUT_MS,
        everyMs: 50,
        ignoreErrors: true,
      },
    );

    const live = () => nodes.filter((node) => !dead.has(node));
    const roleOf = async (node: ClusterNode) => String(((await node.admin.call('role')) as unknown[])[0]);
    const cluster: RedisCluster = {
      nodes,
      urls: servers.map((server) => server.url),
      async primaryOf(key) {
        const [asked] = live();
        const slot = Number(await asked!.admin.call('cluster', 'keyslot', key));
        const ranges = (await asked!.admin.call('cluster', 'slots')) as Array<[number, number, [string, number]]>;
        const port = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
        const node = live().find((candidate) => candidate.server.port === port);
        if (!node) throw new Error(`redis cluster: no live primary serves slot ${slot} of ${key}`);
        return node;
      },
      async killPrimary(primary, timeoutMs = 30_000) {
        const replicas: ClusterNode[] = [];
        for (const node of live()) {
          if (node === primary) continue;
          const role = (await node.admin.call('role')) as unknown[];
          if (role[0] === 'slave' && Number(role[2]) === primary.server.port) replicas.push(node);
        }
        if (replicas.length === 0) throw new Error(`redis cluster: ${primary.server.url} has no replica to take over`);
        dead.add(primary);
        primary.admin.disconnect();
        await primary.server.kill();
        const killedAt = Date.now();
        let promoted: ClusterNode | undefined;
        const promotion = until(
          async () => {
            for (const node of replicas) {
              if ((await roleOf(node)) !== 'master') continue;
              if (info(String(await node.admin.call('cluster', 'info')), 'cluster_state') !== 'ok') continue;
              promoted = node;
              return true;
            }
            return false;
          },
          {
            what: `redis cluster: a replica of ${primary.server.url} becoming primary`,
            timeoutMs,
            everyMs: 20,
            ignoreErrors: true,
          },
        ).then(() => ({ node: promoted!, promotedAt: Date.now() }));
        promotion.catch(() => undefined); // the caller's await sees it
        return { killedAt, promotion };
      },
      async messagesSent(type) {
        const counts = await Promise.all(
          live().map(async (node) =>
            Number(info(String(await node.admin.call('cluster', 'info')), `cluster_stats_messages_${type}_sent`) ?? 0),
          ),
        );
        return counts.reduce((sum, count) => sum + count, 0);
      },
      stop: stopAll,
    };
    return cluster;
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * One cluster per test file, started before its tests and stopped after them, with the runtime
 * configured against it from its URL list (the runtime opens and owns the Cluster client), and a
 * Cluster client of the test's own for looking at keys.
 */
export function useRedisCluster(
  test: TestFn,
  options: Omit<ConfigureOptions, 'redis'> = {},
): { cluster: RedisCluster; client: Cluster } {
  const fixture = {} as { cluster: RedisCluster; client: Cluster };
  test.before(async (t) => {
    t.log(`server: ${redisServerVersion()}`);
    fixture.cluster = await startRedisCluster();
    fixture.client = new Cluster([...fixture.cluster.urls]);
    fixture.client.on('error', () => undefined);
    configure({ ...options, redis: fixture.cluster.urls });
  });
  test.after.always(async () => {
    await close();
    fixture.client?.disconnect();
    await fixture.cluster?.stop();
  });
  return fixture;
}

/** `count` keys (`<label>-<n>`, or with `{tag}` hash tags) whose lock keys fall in each primary's slot range. */
export function keysPerShard(
  lockKeyOf: (value: string) => string,
  label: string,
  count: number,
  tagged = false,
): string[][] {
  const shards: string[][] = SLOT_RANGES.map(() => []);
  for (let n = 0; n < 10_000 && shards.some((keys) => keys.length < count); n++) {
    const value = tagged ? `{${label}-${n}}:x` : `${label}-${n}`;
    const slot = slotOf(lockKeyOf(value));
    const shard = SLOT_RANGES.findIndex(([from, to]) => slot >= from && slot <= to);
    if (shards[shard]!.length < count) shards[shard]!.push(value);
  }
  return shards;
}
