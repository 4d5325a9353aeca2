// The Redis store on a node-redis client or cluster (npm `redis`, v5 or v6) the user connected: the verbs
// are scripted-lock-store.ts's, with the same scripts, keys and release channels as on ioredis,
// so processes on either client share locks. The client stays the user's: close() leaves it open.
import {
  isNodeRedisClient,
  isNodeRedisCluster,
  nodeRedisSender,
  nodeRedisSubscriber,
  type NodeRedisClient,
} from './node-redis-client';
import { nodeRedisClusterSender, nodeRedisClusterSubscriber, type NodeRedisCluster } from './node-redis-cluster';
import { RedisHealth } from './redis-health';
import { serverIdFrom } from './redis-store';
import { RedisNotices } from './redis-notices';
import { releaseChannels } from './release-channel';
import { DEFAULT_RELEASE_CHANNEL, ScriptedLockStore } from './scripted-lock-store';

export interface NodeRedisStoreOptions {
  /** The prefix of release channels (channel = prefix + key). All processes sharing locks must agree. */
  channel?: string;
}

export class NodeRedisLockStore extends ScriptedLockStore {
  constructor(
    readonly client: NodeRedisClient | NodeRedisCluster,
    options: NodeRedisStoreOptions = {},
  ) {
    assertOpenNodeRedisClient(client);
    // A cluster (createCluster) announces on shard channels, as an ioredis Cluster does.
    const cluster = isNodeRedisCluster(client) ? (client as NodeRedisCluster) : undefined;
    const channels = releaseChannels(options.channel ?? DEFAULT_RELEASE_CHANNEL, cluster !== undefined);
    const notices: RedisNotices = new RedisNotices(
      cluster
        ? nodeRedisClusterSubscriber(cluster)
        : nodeRedisSubscriber(client as NodeRedisClient, () => notices.listening),
      channels,
    );
    // Never owned: a client the user connected is the user's to stop.
    const health = new RedisHealth(client, false, () => void notices.close());
    const sender = cluster
      ? nodeRedisClusterSender(cluster)
      : nodeRedisSender(client as NodeRedisClient, health.address);
    super({ channels, cluster: cluster !== undefined, notices, sender, health });
    // A cluster is many servers: none of them is the store's (it is never one of Redlock's).
    this.askServerId = cluster
      ? () => Promise.resolve(undefined)
      : () => serverIdFrom(health.send(() => sender.send('info', ['server'])));
  }

  private readonly askServerId: () => Promise<string | undefined>;

  serverId(): Promise<string | undefined> {
    return this.askServerId();
  }
}

/**
 * node-redis sends nothing before `await client.connect()`: a command fails with "The client is
 * closed". Said where the client is given to configure(), not at the first lock.
 */
export function assertOpenNodeRedisClient(client: unknown): asserts client is NodeRedisClient | NodeRedisCluster {
  if (isNodeRedisCluster(client)) {
    if (!(client as NodeRedisCluster).isOpen) {
      throw new TypeError(
        'lockweave: the node-redis cluster is not open: call `await cluster.connect()` before passing it to configure({ redis })',
      );
    }
    return;
  }
  if (!isNodeRedisClient(client))
    throw new TypeError(
      'lockweave: not a node-redis client (createClient() or createCluster() from the `redis` package)',
    );
  if (!client.isOpen) {
    throw new TypeError(
      'lockweave: the node-redis client is not open: call `await client.connect()` before passing it to configure({ redis })',
    );
  }
}
