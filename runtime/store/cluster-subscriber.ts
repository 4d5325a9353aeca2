// The subscriber of release notices (redis-notices.ts) on an ioredis Cluster: SSUBSCRIBE to each
// key's shard channel (release-channel.ts) on the primary that serves its slot, one connection per
// primary, opened when a caller there first has to wait.
//
// Why not ioredis's own `shardedSubscribers` (ClusterSubscriberGroup, 5.8): it opens a subscriber
// for each node that joins as a primary, and a replica promoted by a failover joined as a replica,
// so it gets none. Tried on this repo's cluster: after its primary was killed and the replica
// promoted, a subscribed channel received nothing more, and SSUBSCRIBE on that slot threw
// "Cannot read properties of undefined (reading 'getInstance')". Its connections are its own, too,
// so they could not be unref'd. Here the Cluster's slot map is the one truth: after every refresh
// of it (ioredis refreshes on MOVED, and this subscriber asks while a channel has no connection),
// each channel is moved to its slot's primary of now, and a connection that ends (its node died)
// has its channels subscribed again where the map says, retried until that works.
import type { Cluster, Redis } from 'ioredis';
import { ChannelAsks } from './channel-asks';
import { clusterReady } from './cluster-primaries';
import { lostSubscribeReply, pastHandshake, SUBSCRIBER_OPTIONS } from './ioredis-client';
import { slotOf } from './cluster-slot';
import { quitConnection, unrefConnection } from './connection-ref';
import type { OpenSubscriber, Subscriber } from './redis-notices';
import { setTimer } from '../base/timer-delay';

/** How soon channels left without a connection are subscribed again (and the slot map refreshed). */
const RESUBSCRIBE_MS = 250;

export function clusterSubscriber(cluster: Cluster): OpenSubscriber {
  return (onMessage, _onGone, onBack) => new ShardSubscriber(cluster, onMessage, onBack);
}

class ShardSubscriber implements Subscriber {
  /**
   * Each channel, and the primary ("host:port") it is subscribed on; undefined until that is known.
   * A failed SSUBSCRIBE undoes only its own ask (channel-asks.ts).
   */
  private readonly channels = new ChannelAsks<string | undefined>();
  private readonly connections = new Map<string, Redis>();
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly onRefresh = () => this.route();

  constructor(
    private readonly cluster: Cluster,
    private readonly onMessage: (channel: string, message: string) => void,
    /** A channel subscribed again, on another primary or a new connection: notices may have gone unheard meanwhile. */
    private readonly onBack: (channels: readonly string[]) => void,
  ) {
    cluster.on('refresh', this.onRefresh);
  }

  subscribe(channel: string): Promise<unknown> {
    // The slot map comes with the Cluster's first connection; a store listens only after an
    // attempt, so that is rarely waited for.
    if (this.cluster.status !== 'ready') return clusterReady(this.cluster).then(() => this.subscribe(channel));
    const node = this.primaryOf(channel);
    if (!node) {
      this.channels.ask(channel, undefined);
      this.retrySoon();
      return Promise.reject(new Error(`lockweave: no primary of Redis Cluster is known for the slot of ${channel}`));
    }
    const ask = this.channels.ask(channel, node);
    const connection = this.connectionTo(node);
    return this.ssubscribe(connection, channel).catch((error: unknown) => {
      // The listener is dropped with this failure, and subscribed again later (redis-notices.ts).
      this.channels.undo(ask);
      this.dropIfReplyLost(connection, error);
      throw error;
    });
  }

  unsubscribe(channel: string): Promise<unknown> {
    const node = this.channels.drop(channel)?.at;
    const connection = node === undefined ? undefined : this.connections.get(node);
    // After the handshake too, so that it stays in order with an SSUBSCRIBE of the channel.
    return connection ? pastHandshake(connection).then(() => connection.sunsubscribe(channel)) : Promise.resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cluster.off('refresh', this.onRefresh);
    clearTimeout(this.retryTimer);
    this.channels.clear();
    const connections = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(connections.map(quitConnection));
  }

  private primaryOf(channel: string): string | undefined {
    return (this.cluster as unknown as { slots: string[][] }).slots[slotOf(channel)]?.[0];
  }

  /** Moves every channel whose slot has another primary now (or none yet) to that primary. */
  private route(): void {
    if (this.closed) return;
    for (const { channel, at: node } of this.channels.asks()) {
      const now = this.primaryOf(channel);
      if (now === node && node !== undefined && this.connections.has(node)) continue;
      if (node !== undefined)
        this.connections
          .get(node)
          ?.sunsubscribe(channel)
          .catch(() => undefined);
      const ask = this.channels.ask(channel, now);
      if (now === undefined) {
        this.retrySoon();
        continue;
      }
      const connection = this.connectionTo(now);
      this.ssubscribe(connection, channel).then(
        () => this.onBack([channel]),
        (error: unknown) => {
          // Without a connection, so that the retry subscribes it again.
          if (this.channels.holds(ask)) this.channels.ask(channel, undefined);
          this.dropIfReplyLost(connection, error);
          this.retrySoon();
        },
      );
    }
  }

  private async ssubscribe(connection: Redis, channel: string): Promise<void> {
    await pastHandshake(connection);
    await connection.ssubscribe(channel);
  }

  /** Ends a connection that lost a reply (lostSubscribeReply): its channels go to a new one ('end', below). */
  private dropIfReplyLost(connection: Redis, error: unknown): void {
    if (!this.closed && lostSubscribeReply(connection, error)) connection.disconnect();
  }

  private retrySoon(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimer(() => {
      this.retryTimer = undefined;
      if (this.channels.size === 0) return;
      // The map may still name a dead primary (its replica not yet promoted): ask again. A refresh
      // that changes nothing emits no 'refresh', so route() also runs now.
      (this.cluster as unknown as { refreshSlotsCache(done?: () => void): void }).refreshSlotsCache(() => this.route());
      this.route();
    }, RESUBSCRIBE_MS);
    // A waiter's own timers keep a process alive while it waits; this retry must not.
    this.retryTimer.unref();
  }

  private connectionTo(node: string): Redis {
    const open = this.connections.get(node);
    if (open) return open;
    const known = this.cluster.nodes('master').find((redis) => `${redis.options.host}:${redis.options.port}` === node);
    const [host, port] = [node.slice(0, node.lastIndexOf(':')), Number(node.slice(node.lastIndexOf(':') + 1))];
    const { Redis: RedisClass } = require('ioredis') as typeof import('ioredis');
    const connection = new RedisClass({
      ...known?.options,
      host,
      port,
      lazyConnect: false,
      enableOfflineQueue: true,
      ...SUBSCRIBER_OPTIONS,
      // Not reconnected here: a node that went away is replaced by the one the slot map names.
      retryStrategy: () => null,
      readOnly: false,
    });
    unrefConnection(connection);
    connection.on('error', () => undefined);
    connection.on('smessage', (channel: string, message: string) => this.onMessage(channel, message));
    connection.once('end', () => {
      if (this.connections.get(node) !== connection) return;
      this.connections.delete(node);
      for (const ask of this.channels.asks()) if (ask.at === node) this.channels.ask(ask.channel, undefined);
      this.retrySoon();
    });
    this.connections.set(node, connection);
    return connection;
  }
}
