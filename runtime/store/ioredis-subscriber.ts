// The subscriber of release notices (redis-notices.ts) on an ioredis client: a duplicate of it,
// opened when a caller first has to wait; on a Cluster, sharded subscribers (cluster-subscriber.ts).
import type { Cluster, Redis } from 'ioredis';
import { isCluster } from './ioredis-client';
import { clusterSubscriber } from './cluster-subscriber';
import { unrefConnection } from './connection-ref';
import type { OpenSubscriber } from './redis-notices';

export function ioredisSubscriber(client: Redis | Cluster): OpenSubscriber {
  if (isCluster(client)) return clusterSubscriber(client);
  return (onMessage) => {
    const subscriber = client.duplicate();
    // The subscriber never keeps a process alive: a waiter's own timer does that while it waits.
    unrefConnection(subscriber);
    subscriber.on('message', onMessage);
    // Errors surface as failed subscriptions; ioredis resubscribes by itself after a reconnect.
    subscriber.on('error', () => undefined);
    return {
      subscribe: (channel) => subscriber.subscribe(channel),
      unsubscribe: (channel) => subscriber.unsubscribe(channel),
      close: () => subscriber.quit().then(() => undefined, () => subscriber.disconnect()),
    };
  };
}
