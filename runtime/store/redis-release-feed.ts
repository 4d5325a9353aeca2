// Release notices from Redis: the release script PUBLISHes the key on one channel, and each
// process keeps one subscriber connection that routes the notices to its local waiters.
//
// Why pub/sub on one shared channel rather than keyspace notifications or a channel per key:
// keyspace notifications need a server setting (`notify-keyspace-events`) that managed Redis
// often forbids; a channel per key costs a SUBSCRIBE/UNSUBSCRIBE round trip around every wait.
// One channel, subscribed once per process, costs nothing per wait. The subscriber is created
// only when a caller first has to wait, so uncontended use opens one connection, not two.
import type { Cluster, Redis } from 'ioredis';
import { type ReleaseFeed, type ReleaseWatch, WatcherRegistry } from './release-feed';
import { unrefConnection } from './connection-ref';

export class RedisReleaseFeed implements ReleaseFeed {
  private readonly registry = new WatcherRegistry();
  private subscriber: Redis | Cluster | undefined;
  private subscribed: Promise<void> | undefined;

  constructor(
    private readonly client: Redis | Cluster,
    readonly channel: string,
  ) {}

  async watch(key: string): Promise<ReleaseWatch> {
    const watch = this.registry.add(key);
    try {
      await (this.subscribed ??= this.subscribe());
    } catch (error) {
      // Without notices a waiter still wakes after waitTime; the next watch tries again.
      this.subscribed = undefined;
      this.subscriber?.disconnect();
      this.subscriber = undefined;
      void error;
    }
    return watch;
  }

  private async subscribe(): Promise<void> {
    const subscriber = this.client.duplicate();
    this.subscriber = subscriber;
    // The subscriber never keeps a process alive: a waiter's own timer does that while it waits.
    unrefConnection(subscriber);
    subscriber.on('message', (channel: string, key: string) => {
      if (channel === this.channel) this.registry.released(key);
    });
    // Errors surface through the commands that fail; ioredis resubscribes after a reconnect.
    subscriber.on('error', () => undefined);
    await subscriber.subscribe(this.channel);
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.subscribed = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
