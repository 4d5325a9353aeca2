// configure({ redis }) for a Redis Cluster the runtime opens: a list of URLs (the startup nodes),
// or `{ cluster: [URL or { host, port }, …], clusterOptions? }`. Either shape is told apart from
// one server's URL or options at a glance, and anything between them is refused: options that
// name cluster settings without `cluster`, `cluster` beside single-node settings, URLs that
// disagree on TLS or credentials, a database other than 0 (a Cluster has only database 0).
import type { ClusterNode, ClusterOptions } from 'ioredis';

export interface ClusterConfig {
  /** The startup nodes: any few of the cluster's nodes; the others are found from them. */
  readonly cluster: ReadonlyArray<string | { host: string; port: number }>;
  /** ioredis ClusterOptions; `redisOptions` are each node connection's. */
  readonly clusterOptions?: ClusterOptions;
}

export interface ClusterSetup {
  readonly startupNodes: ClusterNode[];
  /** The URLs' TLS and credentials, for every node connection. */
  readonly redisOptions: { tls?: object; username?: string; password?: string };
  readonly clusterOptions: ClusterOptions;
}

const WHERE = 'lockweave: configure({ redis })';
/** Settings only ioredis's ClusterOptions has: a plain options object naming them meant a Cluster. */
const CLUSTER_ONLY = ['clusterOptions', 'startupNodes', 'redisOptions', 'scaleReads', 'natMap', 'clusterRetryStrategy', 'shardedSubscribers', 'slotsRefreshTimeout'];

/** True when `redis` asks for a Cluster; throws a TypeError when it is ambiguous or malformed. */
export function isClusterConfig(redis: unknown): redis is readonly string[] | ClusterConfig {
  if (Array.isArray(redis)) return checkNodes(redis, 'a list of URLs'), clusterSetup(redis), true;
  if (typeof redis !== 'object' || redis === null) return false;
  const proto = Object.getPrototypeOf(redis);
  if (proto !== Object.prototype && proto !== null) return false; // a client: configure.ts tells which
  const keys = Object.keys(redis);
  if (!keys.includes('cluster')) {
    const clusterish = keys.filter((key) => CLUSTER_ONLY.includes(key));
    if (clusterish.length) {
      throw new TypeError(`${WHERE}: ${clusterish.join(', ')} ${clusterish.length > 1 ? 'are' : 'is'} a Cluster setting, but no \`cluster\` names the nodes; `
        + 'for a Redis Cluster pass { cluster: [urls or { host, port }], clusterOptions }, for one server its URL or options.');
    }
    return false;
  }
  const others = keys.filter((key) => key !== 'cluster' && key !== 'clusterOptions');
  if (others.length) {
    throw new TypeError(`${WHERE}: { cluster } takes only \`cluster\` and \`clusterOptions\`; got also ${others.join(', ')} `
      + '(settings of every node connection go in clusterOptions.redisOptions).');
  }
  const { cluster, clusterOptions } = redis as ClusterConfig;
  if (!Array.isArray(cluster)) throw new TypeError(`${WHERE}: \`cluster\` must be a list of node URLs or { host, port }; got ${typeof cluster}`);
  if (clusterOptions !== undefined && (typeof clusterOptions !== 'object' || clusterOptions === null || Array.isArray(clusterOptions))) {
    throw new TypeError(`${WHERE}: \`clusterOptions\` must be ioredis ClusterOptions (an object); got ${typeof clusterOptions}`);
  }
  checkNodes(cluster, '`cluster`');
  clusterSetup(redis as ClusterConfig);
  return true;
}

/** The startup nodes and the options their URLs carry, checked by isClusterConfig(). */
export function clusterSetup(redis: readonly string[] | ClusterConfig): ClusterSetup {
  const nodes = Array.isArray(redis) ? (redis as readonly string[]) : (redis as ClusterConfig).cluster;
  const clusterOptions = Array.isArray(redis) ? {} : ((redis as ClusterConfig).clusterOptions ?? {});
  const startupNodes: ClusterNode[] = [];
  let urlOptions: ClusterSetup['redisOptions'] | undefined;
  let firstUrl = '';
  for (const node of nodes) {
    if (typeof node !== 'string') {
      startupNodes.push({ host: node.host, port: node.port });
      continue;
    }
    const url = new URL(node);
    startupNodes.push({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) });
    const options: ClusterSetup['redisOptions'] = {
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    };
    if (urlOptions && JSON.stringify(options) !== JSON.stringify(urlOptions)) {
      throw new TypeError(`${WHERE}: the cluster's URLs disagree on TLS or credentials (${redact(firstUrl)} and ${redact(node)}); one cluster has one setting`);
    }
    urlOptions ??= options;
    firstUrl ||= node;
  }
  return { startupNodes, redisOptions: urlOptions ?? {}, clusterOptions };
}

function checkNodes(nodes: readonly unknown[], what: string): void {
  if (nodes.length === 0) throw new TypeError(`${WHERE}: ${what} is empty; name at least one node of the cluster`);
  nodes.forEach((node, index) => {
    const where = `${WHERE}: ${what}[${index}]`;
    if (typeof node === 'string') return checkUrl(node, where);
    const { host, port } = (node ?? {}) as { host?: unknown; port?: unknown };
    const extra = typeof node === 'object' && node !== null ? Object.keys(node).filter((key) => key !== 'host' && key !== 'port') : [];
    if (typeof host !== 'string' || host === '' || !Number.isInteger(port) || (port as number) <= 0 || (port as number) > 65_535 || extra.length) {
      throw new TypeError(`${where} must be a redis:// URL or { host, port }; got ${typeof node === 'object' ? JSON.stringify(node) : typeof node}`);
    }
  });
}

function checkUrl(text: string, where: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${where} is not a URL: ${redact(text)}`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new TypeError(`${where}: ${url.protocol} is not redis: or rediss: (${redact(text)})`);
  if (!url.hostname) throw new TypeError(`${where} names no host: ${redact(text)}`);
  if (url.pathname !== '' && url.pathname !== '/' && url.pathname !== '/0') {
    throw new TypeError(`${where} names database ${url.pathname.slice(1)}, but a Redis Cluster has only database 0: ${redact(text)}`);
  }
  if (url.search || url.hash) throw new TypeError(`${where}: query parameters are not read for a cluster; use clusterOptions (${redact(text)})`);
}

function redact(text: string): string {
  return text.replace(/\/\/[^@/]*@/, '//…@');
}
