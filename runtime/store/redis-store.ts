// The Redis store on an ioredis client: the verbs are scripted-lock-store.ts's; this file gives
// them ioredis's parts (commands of one tick share a write: command-batch.ts).
// It works with an ioredis `Redis` (single node or Sentinel) or `Cluster`: the lock key and its
// line of waiters share one hash slot (waiting-line.ts), so Cluster sends each script to the node
// that owns the key.
import type { Cluster, Redis } from 'ioredis';
import { commandSender, isCluster } from './command-batch';
import { ConnectionRef } from './connection-ref';
import { ioredisSubscriber } from './ioredis-subscriber';
import { RedisHealth } from './redis-health';
import { RedisNotices } from './redis-notices';
import { DEFAULT_RELEASE_CHANNEL, ScriptedLockStore } from './scripted-lock-store';

export { DEFAULT_RELEASE_CHANNEL } from './scripted-lock-store';

export interface RedisStoreOptions {
  /** The prefix of release channels (channel = prefix + key). All processes sharing locks must agree. */
  channel?: string;
  /** True when the store created the client, and so closes it and keeps it from holding the process open. */
  ownsClient?: boolean;
}

export class RedisLockStore extends ScriptedLockStore {
  constructor(
    readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    const channel = options.channel ?? DEFAULT_RELEASE_CHANNEL;
    const notices = new RedisNotices(ioredisSubscriber(client), channel);
    const ref = options.ownsClient ? new ConnectionRef(client) : undefined;
    super({
      channel,
      notices,
      sender: commandSender(client),
      health: new RedisHealth(client, options.ownsClient === true, () => void notices.close()),
      track: ref && ((command) => ref.track(command)),
    });
  }

  override waitForReplicas(replicas: number, timeoutMs: number): Promise<number> {
    if (isCluster(this.client)) {
      return Promise.reject(new TypeError('lockweave: option replicas > 0 is not supported on an ioredis Cluster: WAIT names no key, so '
        + 'the Cluster client would send it to any node rather than to the primary that made the grant'));
    }
    return super.waitForReplicas(replicas, timeoutMs);
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.options.ownsClient) await this.client.quit().catch(() => this.client.disconnect());
  }
}
