// The servers of bench/topologies.ts as a contender reaches them: the parent starts a Redis Cluster
// (3 primaries + 3 replicas) and 3 independent primaries for Redlock, and passes their URLs to the
// children in BENCH_CLUSTER_URLS and BENCH_REDLOCK_URLS.
import { Cluster, Redis } from 'ioredis';

export function urlsFrom(variable: 'BENCH_CLUSTER_URLS' | 'BENCH_REDLOCK_URLS'): string[] {
  const urls = process.env[variable]?.split(',').filter(Boolean) ?? [];
  if (urls.length === 0)
    throw new Error(`${variable} is not set: run this contender from bench/topologies.ts, which starts the servers`);
  return urls;
}

/** An ioredis Cluster client of the bench's Cluster, connected. */
export async function clusterClient(): Promise<Cluster> {
  const nodes = urlsFrom('BENCH_CLUSTER_URLS').map((url) => {
    const { hostname, port } = new URL(url);
    return { host: hostname, port: Number(port) };
  });
  const cluster = new Cluster(nodes);
  await cluster.ping();
  return cluster;
}

/** One ioredis client per Redlock primary, connected. */
export async function redlockClients(): Promise<Redis[]> {
  const clients = urlsFrom('BENCH_REDLOCK_URLS').map((url) => new Redis(url));
  await Promise.all(clients.map((client) => client.ping()));
  return clients;
}

/**
 * Where a contender's locks go: the bench's single Redis (the client its setup() is given) or one
 * of the topologies. A peer or the floor on a topology is the same code as on the single Redis,
 * given the topology's clients.
 */
export interface LockServers<Clients> {
  /** Said after the contender's name ("redlock@4 on Redlock ×3"); '' for the single Redis. */
  readonly where: string;
  open(single: Redis): Promise<Clients>;
  close(opened: Clients): Promise<void>;
}

export const SINGLE: LockServers<Redis> = { where: '', open: async (single) => single, close: async () => undefined };
export const SINGLE_AS_LIST: LockServers<Redis[]> = {
  where: '',
  open: async (single) => [single],
  close: async () => undefined,
};
export const CLUSTER: LockServers<Cluster> = {
  where: 'Redis Cluster',
  open: clusterClient,
  close: async (cluster) => cluster.disconnect(),
};
export const REDLOCK_PRIMARIES: LockServers<Redis[]> = {
  where: 'Redlock ×3',
  open: redlockClients,
  close: async (clients) => {
    for (const client of clients) client.disconnect();
  },
};

/** "name" on the single Redis, "name on where" elsewhere. */
export function nameOn(name: string, servers: LockServers<unknown>): string {
  return servers.where ? `${name} on ${servers.where}` : name;
}
