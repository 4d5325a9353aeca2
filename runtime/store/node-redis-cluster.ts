// A node-redis cluster (`createCluster()` of npm `redis`, v5 or v6) as the store uses it: how a
// command is routed, and the sharded subscriber of release notices (release-channel.ts).
//
// node-redis routes a raw command by the key it is told, and keeps one sharded pub/sub connection
// per primary, moving a shard channel's listeners when its slot moves (a failover, a resharding):
// the store uses both as they are. Described by shape, not imported, as node-redis-client.ts is.
import type { CommandSender } from './command-batch';
import { COMMAND_TIMEOUT_MS } from './command-batch';
import { routingKey } from './cluster-slot';
import { bounded, explainTimeout } from './node-redis-client';
import type { OpenSubscriber } from './redis-notices';

/** What configure() accepts as a node-redis cluster: `createCluster()`'s, connected. */
export interface NodeRedisClusterLike {
  readonly isOpen: boolean;
  readonly masters: unknown;
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: readonly string[],
    options?: never,
  ): Promise<unknown>;
}

/** What the store uses of it. */
export interface NodeRedisCluster extends NodeRedisClusterLike {
  readonly isReady: boolean;
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: readonly string[],
    options?: { timeout?: number },
  ): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  sUnsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

export function nodeRedisClusterSender(cluster: NodeRedisCluster): CommandSender {
  const options = { timeout: COMMAND_TIMEOUT_MS };
  return {
    send: (name, args) =>
      cluster.sendCommand(routingKey(name, args), false, [name, ...args.map(String)], options).catch(explainTimeout),
  };
}

/** SSUBSCRIBE through the cluster itself; close() takes back what it subscribed. The cluster stays the user's. */
export function nodeRedisClusterSubscriber(cluster: NodeRedisCluster): OpenSubscriber {
  return (onMessage) => {
    const channels = new Set<string>();
    const listener = (message: string, channel: string) => onMessage(channel, message);
    const unsubscribe = (channel: string) => {
      channels.delete(channel);
      return cluster.sUnsubscribe(channel, listener);
    };
    return {
      subscribe: (channel) => {
        channels.add(channel);
        return bounded(cluster.sSubscribe(channel, listener), () => void unsubscribe(channel).catch(() => undefined));
      },
      unsubscribe,
      close: async () => {
        await Promise.all([...channels].map((channel) => unsubscribe(channel).catch(() => undefined)));
      },
    };
  };
}
