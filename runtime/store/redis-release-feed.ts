// Release notices from Redis: the release script PUBLISHes on a channel named after the key,
// and each process keeps one subscriber connection, subscribed to the channels of the keys it
// has waiters for, which routes the notices to those waiters.
//
// Why a channel per key, subscribed only while someone here waits: a process hears only the
// releases it cares about (one shared channel would deliver every release of every key to
// every process), and a PUBLISH that nobody listens to costs Redis a dictionary lookup. The
// SUBSCRIBE round trip is paid once per key per contention episode, while the caller waits
// anyway. Why not keyspace notifications: they need a server setting (`notify-keyspace-events`)
// that managed Redis often forbids, and they fire on every write. The subscriber connection is
// opened only when a caller first has to wait, so uncontended use opens one connection, not two.
import type { Cluster, Redis } from 'ioredis';
import { type ReleaseFeed, type ReleaseWatch, WatcherRegistry } from './release-feed';
import { unrefConnection } from './connection-ref';

export class RedisReleaseFeed implements ReleaseFeed {
  private readonly registry = new WatcherRegistry((key) => this.unsubscribe(key));
  private readonly subscriptions = new Map<string, Promise<unknown>>();
  private subscriber: Redis | Cluster | undefined;

  constructor(
    private readonly client: Redis | Cluster,
    /** Channel name = this prefix + the key. */
    readonly channelPrefix: string,
  ) {}

  async watch(key: string, leaseMs: number): Promise<ReleaseWatch> {
    const watch = this.registry.add(key, leaseMs);
    let subscribed = this.subscriptions.get(key);
    if (!subscribed) {
      subscribed = this.connect().subscribe(this.channelPrefix + key);
      this.subscriptions.set(key, subscribed);
    }
    try {
      await subscribed;
    } catch {
      // Without notices a waiter still wakes at its scheduled attempts; a later watch retries.
      if (this.subscriptions.get(key) === subscribed) this.subscriptions.delete(key);
    }
    return watch;
  }

  reserveSuccessor(key: string): ReleaseWatch | undefined {
    return this.registry.reserveSuccessor(key);
  }

  isWatched(key: string): boolean {
    return this.registry.has(key);
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.subscriptions.clear();
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private connect(): Redis | Cluster {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.client.duplicate();
    this.subscriber = subscriber;
    // The subscriber never keeps a process alive: a waiter's own timer does that while it waits.
    unrefConnection(subscriber);
    subscriber.on('message', (channel: string) => {
      if (channel.startsWith(this.channelPrefix)) this.registry.released(channel.slice(this.channelPrefix.length));
    });
    // Errors surface as failed subscriptions; ioredis resubscribes by itself after a reconnect.
    subscriber.on('error', () => undefined);
    return subscriber;
  }

  private unsubscribe(key: string): void {
    if (!this.subscriptions.delete(key) || !this.subscriber) return;
    // Commands on one connection stay in order, so a later SUBSCRIBE of this key lands after it.
    this.subscriber.unsubscribe(this.channelPrefix + key).catch(() => undefined);
  }
}
