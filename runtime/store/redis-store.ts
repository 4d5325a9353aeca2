// The Redis store: one round trip for each verb.
//   acquire  SET key token NX PX lease
//   renew    EVALSHA compare-and-PEXPIRE
//   release  EVALSHA compare-and-DEL, which also PUBLISHes the key to wake waiters
// It works with an ioredis `Redis` (single node or Sentinel) or `Cluster`: every command
// carries exactly one key, so Cluster routes it to the node that owns the key's slot.
import type { Cluster, Redis } from 'ioredis';
import type { LockStore } from './lock-store';
import { RedisReleaseFeed } from './redis-release-feed';
import { HANDOVER_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT, runScript } from './redis-scripts';
import { ConnectionRef } from './connection-ref';
import { RedisHealth } from './redis-health';

/** A released key is announced on the channel `lockweave:released:<key>`. */
export const DEFAULT_RELEASE_CHANNEL = 'lockweave:released:';

export interface RedisStoreOptions {
  /** The prefix of release channels (channel = prefix + key). All processes sharing locks must agree. */
  channel?: string;
  /** True when the store created the client, and so closes it and keeps it from holding the process open. */
  ownsClient?: boolean;
}

export class RedisLockStore implements LockStore {
  readonly releases: RedisReleaseFeed;
  private readonly channel: string;
  private readonly ref: ConnectionRef | undefined;
  private readonly health: RedisHealth;

  constructor(
    readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    this.channel = options.channel ?? DEFAULT_RELEASE_CHANNEL;
    this.releases = new RedisReleaseFeed(client, this.channel);
    this.ref = options.ownsClient ? new ConnectionRef(client) : undefined;
    this.health = new RedisHealth(client, options.ownsClient === true, () => void this.releases.close());
  }

  // The verbs are not async: each is one command, so each adds one promise, not an async frame.

  tryAcquire(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.send(() => this.client.set(key, token, 'PX', leaseMs, 'NX')).then(isOk);
  }

  handover(key: string, token: string, nextToken: string, leaseMs: number): Promise<boolean> {
    return this.send(() => runScript(this.client, HANDOVER_SCRIPT, key, [token, nextToken, leaseMs])).then(isOne);
  }

  renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.send(() => runScript(this.client, RENEW_SCRIPT, key, [token, leaseMs])).then(isOne);
  }

  isHeld(key: string): Promise<boolean> {
    return this.send(() => this.client.exists(key)).then(isOne);
  }

  release(key: string, token: string): Promise<boolean> {
    return this.send(() => runScript(this.client, RELEASE_SCRIPT, key, [token, this.channel])).then(isOne);
  }

  async close(): Promise<void> {
    await this.releases.close();
    if (this.options.ownsClient) await this.client.quit().catch(() => this.client.disconnect());
  }

  /** One command: refused at once when Redis is known to be unusable, else sent and, if ours, tracked. */
  private send<T>(command: () => Promise<T>): Promise<T> {
    const sent = this.health.send(command);
    return this.ref ? this.ref.track(sent) : sent;
  }
}

function isOk(reply: string | null): boolean {
  return reply === 'OK';
}

function isOne(reply: unknown): boolean {
  return reply === 1;
}
