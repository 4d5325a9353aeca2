// configure({ redis }) for a Redis Cluster the runtime opens: a list of URLs (the startup nodes),
// or `{ cluster: [URL or { host, port }, …], clusterOptions? }`. Either shape is told apart from
// one server's URL or options at a glance, and anything between them is refused: options that
// name cluster settings without `cluster`, `cluster` beside single-node settings, URLs that
// disagree on TLS or credentials, a database other than 0 (a Cluster has only database 0).
import type { ClusterNode, ClusterOptions } from 'ioredis';
import { printable } from '../base/printable';
import { checkHost, checkPort, describeValue, parseRedisUrl, printAddress, type RedisUrl } from '../base/redis-address';
import {
  checkClusterOptions,
  CLUSTER_OPTION_KEYS,
  isPlainObject,
  REDIS_OPTION_KEYS,
  refuseUndefined,
} from '../base/redis-options';

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
/**
 * Settings only a Cluster has (ioredis's ClusterOptions less what one server's options share, and
 * the names of its parts): a plain options object naming them meant a Cluster.
 */
const CLUSTER_ONLY = [
  'clusterOptions',
  'startupNodes',
  ...CLUSTER_OPTION_KEYS.filter((key) => !REDIS_OPTION_KEYS.includes(key)),
];

/** True when `redis` asks for a Cluster; throws a TypeError when it is ambiguous or malformed. */
export function isClusterConfig(redis: unknown): redis is readonly string[] | ClusterConfig {
  if (Array.isArray(redis)) return (checkNodes(redis, 'a list of URLs'), clusterSetup(redis), true);
  if (!isPlainObject(redis)) return false; // a client, or not a configuration at all: configure-checks.ts tells which
  const keys = Object.keys(redis);
  if (!keys.includes('cluster')) {
    const clusterish = keys.filter((key) => CLUSTER_ONLY.includes(key));
    if (clusterish.length) {
      throw new TypeError(
        `${WHERE}: ${clusterish.join(', ')} ${clusterish.length > 1 ? 'are' : 'is'} a Cluster setting, but no \`cluster\` names the nodes; ` +
          'for a Redis Cluster pass { cluster: [urls or { host, port }], clusterOptions }, for one server its URL or options.',
      );
    }
    return false;
  }
  const others = keys.filter((key) => key !== 'cluster' && key !== 'clusterOptions');
  if (others.length) {
    throw new TypeError(
      `${WHERE}: { cluster } takes only \`cluster\` and \`clusterOptions\`; got also ${others.map((key) => printable(key).slice(0, 40)).join(', ')} ` +
        '(settings of every node connection go in clusterOptions.redisOptions).',
    );
  }
  const { cluster, clusterOptions } = redis as ClusterConfig;
  if (!Array.isArray(cluster))
    throw new TypeError(
      `${WHERE}: \`cluster\` must be a list of node URLs or { host, port }; got ${describeValue(cluster)}`,
    );
  refuseUndefined(redis, WHERE, 'to take the defaults');
  if (clusterOptions !== undefined) checkClusterOptions(clusterOptions, `${WHERE}: clusterOptions`);
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
  let firstUrl: RedisUrl | undefined;
  nodes.forEach((node, index) => {
    if (typeof node !== 'string')
      return void startupNodes.push({ host: node.host, port: checkPort(node.port, `${WHERE}: node ${index}`) });
    const url = parseRedisUrl(node, `${WHERE}: node ${index}`);
    startupNodes.push({ host: url.host, port: url.port });
    const options: ClusterSetup['redisOptions'] = {
      ...(url.tls ? { tls: {} } : {}),
      ...(url.username !== undefined ? { username: url.username } : {}),
      ...(url.password !== undefined ? { password: url.password } : {}),
    };
    if (urlOptions && !sameSettings(options, urlOptions)) {
      throw new TypeError(
        `${WHERE}: the cluster's URLs disagree on TLS or credentials (${printAddress(firstUrl!)} and ${printAddress(url)}); one cluster has one setting`,
      );
    }
    urlOptions ??= options;
    firstUrl ??= url;
  });
  return { startupNodes, redisOptions: urlOptions ?? {}, clusterOptions };
}

function sameSettings(a: ClusterSetup['redisOptions'], b: ClusterSetup['redisOptions']): boolean {
  return Boolean(a.tls) === Boolean(b.tls) && a.username === b.username && a.password === b.password;
}

function checkNodes(nodes: readonly unknown[], what: string): void {
  if (nodes.length === 0) throw new TypeError(`${WHERE}: ${what} is empty; name at least one node of the cluster`);
  // entries(), not forEach: a hole ([, url]) is a node too, and refused here, not read later as undefined.
  for (const [index, node] of nodes.entries()) {
    const where = `${WHERE}: ${what}[${index}]`;
    if (typeof node === 'string') {
      checkUrl(node, where);
      continue;
    }
    // Never printed: a node object may hold a password (`{ host, port, password }`), which ioredis would not read there anyway.
    const usage = `${where} must be a redis:// URL or { host, port }`;
    if (!isPlainObject(node)) throw new TypeError(`${usage}; got ${describeValue(node)}`);
    const extra = Object.keys(node).filter((key) => key !== 'host' && key !== 'port');
    if (extra.length) {
      throw new TypeError(
        `${usage}; got also ${extra.map((key) => printable(key).slice(0, 40)).join(', ')} ` +
          '(credentials and TLS of every node go in clusterOptions.redisOptions, or in the URLs)',
      );
    }
    const { host, port } = node as { host?: unknown; port?: unknown };
    if (host === undefined || port === undefined)
      throw new TypeError(`${usage}; it lacks ${host === undefined ? 'host' : 'port'}`);
    checkHost(host, `${where}.host`);
    checkPort(port, `${where}.port`);
  }
}

function checkUrl(text: string, where: string): void {
  const url = parseRedisUrl(text, where);
  if (url.db !== 0) throw new TypeError(`${where} names database ${url.db}, but a Redis Cluster has only database 0`);
  if (url.query.size) throw new TypeError(`${where}: query parameters are not read for a cluster; use clusterOptions`);
}
