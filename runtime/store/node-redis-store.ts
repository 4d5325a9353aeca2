// The Redis store on a node-redis client (npm `redis`, v5 or v6) the user connected: the verbs
// are scripted-lock-store.ts's, with the same scripts, keys and release channels as on ioredis,
// so processes on either client share locks. The client stays the user's: close() leaves it open.
import { isNodeRedisClient, nodeRedisSender, nodeRedisSubscriber, type NodeRedisClient } from './node-redis-client';
import { RedisHealth } from './redis-health';
import { RedisNotices } from './redis-notices';
import { releaseChannels } from './release-channel';
import { DEFAULT_RELEASE_CHANNEL, ScriptedLockStore } from './scripted-lock-store';

export interface NodeRedisStoreOptions {
  /** The prefix of release channels (channel = prefix + key). All processes sharing locks must agree. */
  channel?: string;
}

export class NodeRedisLockStore extends ScriptedLockStore {
  constructor(
    readonly client: NodeRedisClient,
    options: NodeRedisStoreOptions = {},
  ) {
    assertOpenNodeRedisClient(client);
    const channels = releaseChannels(options.channel ?? DEFAULT_RELEASE_CHANNEL, false);
    const notices: RedisNotices = new RedisNotices(nodeRedisSubscriber(client, () => notices.listening), channels);
    super({
      channels,
      notices,
      sender: nodeRedisSender(client),
      // Never owned: a client the user connected is the user's to stop.
      health: new RedisHealth(client, false, () => void notices.close()),
    });
  }
}

/**
 * node-redis sends nothing before `await client.connect()`: a command fails with "The client is
 * closed". Said where the client is handed over, not at the first lock.
 */
export function assertOpenNodeRedisClient(client: unknown): asserts client is NodeRedisClient {
  if (!isNodeRedisClient(client)) throw new TypeError('lockweave: not a node-redis client (createClient() from the `redis` package)');
  if (!client.isOpen) {
    throw new TypeError('lockweave: the node-redis client is not open: call `await client.connect()` before passing it to configure({ redis })');
  }
}
