// A node-redis cluster (`createCluster()` of npm `redis`, v5 or v6) as the store uses it: how a
// command is sent, and the sharded subscriber of release notices (release-channel.ts).
//
// A lock command goes to its slot's primary on that primary's own node client, where a ReplyPairing
// checks that its reply is its own (node-redis-pairing.ts), as on one node-redis client: the
// cluster's routing would put it on that connection too, but out of the store's sight, so a reply
// lost there would shift every later one unseen. A command the primary redirects (MOVED, ASK: a
// failover, a resharding) is sent again through the cluster's routing, which follows redirections,
// and its reply is used once a PING on every primary's connection, written after the reply came,
// echoed: whichever connection brought it, every reply read there before the PING was its own.
// node-redis keeps one sharded pub/sub connection per primary, moving a shard channel's listeners
// when its slot moves: the subscriber uses it as it is, and has the waiters look again when one of
// them is back from a reconnect. Described by shape, not imported, as node-redis-client.ts is.
import { ChannelAsks } from './channel-asks';
import type { CommandSender } from './command-batch';
import { COMMAND_TIMEOUT_MS, commandTimedOut } from './command-batch';
import { routingKey, slotOf } from './cluster-slot';
import { bounded, explainTimeout } from './node-redis-client';
import { ReplyPairing, type PairedClient } from './node-redis-pairing';
import type { OpenSubscriber } from './redis-notices';
import { setTimer } from '../base/timer-delay';

/**
 * What configure() accepts as a node-redis cluster: `createCluster()`'s, connected. Its `args` are a
 * mutable array: v6 types them `RedisArgument[]`, to which a readonly array is not assignable.
 */
export interface NodeRedisClusterLike {
  readonly isOpen: boolean;
  readonly masters: unknown;
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: never,
  ): Promise<unknown>;
}

/** A node of the cluster as node-redis lists it (`masters`, `slots[n].master`). */
interface ClusterNode {
  readonly address: string;
  /** Its sharded pub/sub connection, once a shard channel of its slots was subscribed. */
  readonly pubSub?: { readonly client?: ShardSubscriber };
}

/** What the store uses of it. */
export interface NodeRedisCluster extends NodeRedisClusterLike {
  readonly isReady: boolean;
  readonly masters: readonly ClusterNode[];
  readonly slots: ReadonlyArray<{ readonly master: ClusterNode } | undefined>;
  nodeClient(node: ClusterNode): Promise<PairedClient>;
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: readonly string[],
    options?: { timeout?: number },
  ): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  sUnsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

export function nodeRedisClusterSender(cluster: NodeRedisCluster): CommandSender {
  const primaries = new PairedPrimaries(cluster);
  return {
    send: (name, args) => primaries.send(routingKey(name, args), [name, ...args.map(String)]).catch(explainTimeout),
    close: () => primaries.close(),
  };
}

const ROUTED = { timeout: COMMAND_TIMEOUT_MS };

/** The cluster's primaries' node clients, each with its ReplyPairing (see the top of the file). */
class PairedPrimaries {
  private readonly pairings = new Map<PairedClient, ReplyPairing>();

  constructor(private readonly cluster: NodeRedisCluster) {}

  send(key: string, command: readonly string[]): Promise<unknown> {
    const primary = this.cluster.slots[slotOf(key)]?.master;
    if (!primary) return this.sendRouted(key, command);
    return this.pairingOf(primary).then((pairing) =>
      pairing
        .send(command)
        .catch((error: unknown) => (isRedirection(error) ? this.sendRouted(key, command) : Promise.reject(error))),
    );
  }

  /** Takes the listeners off every node client (the cluster is the user's). */
  close(): void {
    for (const pairing of this.pairings.values()) pairing.close();
    this.pairings.clear();
  }

  /**
   * Through the cluster's routing, with its redirections; the reply is used once every primary's
   * connection is paired. Bounded as a command on a node client is: node-redis keeps no bound on a
   * written command (node-redis-pairing.ts).
   */
  private sendRouted(key: string, command: readonly string[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimer(() => reject(commandTimedOut(COMMAND_TIMEOUT_MS)), COMMAND_TIMEOUT_MS);
      timer.unref();
      this.cluster
        .sendCommand(key, false, command, ROUTED)
        .then((reply) =>
          Promise.all(
            this.cluster.masters.map((primary) => this.pairingOf(primary).then((pairing) => pairing.paired())),
          ).then(() => reply),
        )
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    });
  }

  private pairingOf(primary: ClusterNode): Promise<ReplyPairing> {
    return this.cluster.nodeClient(primary).then((client) => {
      let pairing = this.pairings.get(client);
      if (!pairing) {
        // A primary's client replaced (a failover, a connection given up) leaves the old one closed.
        for (const [old, gone] of this.pairings) {
          if (!old.isOpen) {
            gone.close();
            this.pairings.delete(old);
          }
        }
        pairing = new ReplyPairing(client, primary.address);
        this.pairings.set(client, pairing);
      }
      return pairing;
    });
  }
}

/** A primary's answer that the key's slot is served elsewhere (for good, or during a migration). */
function isRedirection(error: unknown): boolean {
  return error instanceof Error && (error.message.startsWith('MOVED ') || error.message.startsWith('ASK '));
}

/** A primary's sharded pub/sub connection as node-redis keeps it (`masters[n].pubSub.client`). */
interface ShardSubscriber {
  readonly isReady: boolean;
  once(event: 'ready', listener: () => void): unknown;
}

/**
 * SSUBSCRIBE through the cluster itself; close() takes back what it subscribed. The cluster stays the user's.
 *
 * A shard's subscriber that lost its connection connects again and subscribes its channels again by
 * itself; a release announced meanwhile reached nobody here. Its waiters look again once it is back
 * (onBack), as on one node-redis client (node-redis-client.ts), rather than sleep on to their next
 * scheduled attempt. The cluster says a node client reconnects ('node-reconnecting', v5 and v6), not
 * when it is back (v5 says 'node-ready' only the first time): so at each reconnect the primaries'
 * subscribers not ready then are each watched for their next 'ready' — which node-redis says once it
 * has subscribed again. Every waiter looks then, whichever shard it listens on: a look is one attempt.
 */
export function nodeRedisClusterSubscriber(cluster: NodeRedisCluster): OpenSubscriber {
  return (onMessage, _onGone, onBack) => {
    const channels = new ChannelAsks();
    const listener = (message: string, channel: string) => onMessage(channel, message);
    const unsubscribe = (channel: string) => {
      channels.drop(channel);
      return cluster.sUnsubscribe(channel, listener);
    };
    const watched = new WeakSet<ShardSubscriber>();
    const onReconnecting = () => {
      for (const primary of cluster.masters) {
        const subscriber = primary.pubSub?.client;
        if (!subscriber || subscriber.isReady || watched.has(subscriber)) continue;
        watched.add(subscriber);
        subscriber.once('ready', () => {
          watched.delete(subscriber);
          if (channels.size > 0) onBack(channels.channels());
        });
      }
    };
    cluster.on('node-reconnecting', onReconnecting);
    return {
      subscribe: (channel) => {
        const ask = channels.ask(channel, undefined);
        // Given up, it is taken back only if nobody asked for the channel since (channel-asks.ts).
        return bounded(cluster.sSubscribe(channel, listener), () => {
          if (channels.undo(ask)) void cluster.sUnsubscribe(channel, listener).catch(() => undefined);
        });
      },
      unsubscribe,
      close: async () => {
        cluster.off('node-reconnecting', onReconnecting);
        await Promise.all(channels.channels().map((channel) => unsubscribe(channel).catch(() => undefined)));
      },
    };
  };
}
