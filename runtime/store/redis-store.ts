// The Redis store on an ioredis client: the verbs are scripted-lock-store.ts's; this file gives
// them ioredis's parts (commands of one tick share a write: command-batch.ts).
// It works with an ioredis `Redis` (single node or Sentinel) or `Cluster`: the lock key and its
// line of waiters share one hash slot (waiting-line.ts), so Cluster sends each script to the node
// that owns the key, and its releases are announced on that key's shard (release-channel.ts).
import type { Cluster, Redis } from 'ioredis';
import { commandSender } from './command-batch';
import { ConnectionRef } from './connection-ref';
import { ioredisSubscriber } from './ioredis-subscriber';
import { RedisHealth } from './redis-health';
import { RedisNotices } from './redis-notices';
import { releaseChannels } from './release-channel';
import { DEFAULT_RELEASE_CHANNEL, ScriptedLockStore } from './scripted-lock-store';

export { DEFAULT_RELEASE_CHANNEL } from './scripted-lock-store';

export interface RedisStoreOptions {
  /** The prefix of release channels (release-channel.ts). All processes sharing locks must agree. */
  channel?: string;
  /** True when the store created the client, and so closes it and keeps it from holding the process open. */
  ownsClient?: boolean;
}

export class RedisLockStore extends ScriptedLockStore {
  constructor(
    readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    const channels = releaseChannels(options.channel ?? DEFAULT_RELEASE_CHANNEL, client.isCluster);
    const notices = new RedisNotices(ioredisSubscriber(client), channels);
    const ref = options.ownsClient ? new ConnectionRef(client) : undefined;
    const health = new RedisHealth(client, options.ownsClient === true, () => void notices.close());
    super({
      channels,
      notices,
      sender: commandSender(client),
      health,
      track: ref && ((command) => ref.track(command)),
    });
    this.recentlyUsed = () => health.recentlyUsed;
  }

  /** Whether a command was sent lately (see RedisHealth.recentlyUsed). */
  readonly recentlyUsed: () => boolean;

  override async close(): Promise<void> {
    await super.close();
    if (this.options.ownsClient) await this.client.quit().catch(() => this.client.disconnect());
  }
}
