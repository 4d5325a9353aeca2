// The subscriber of release notices (redis-notices.ts) on an ioredis client: a duplicate of it,
// opened when a caller first has to wait; on a Cluster, sharded subscribers (cluster-subscriber.ts).
//
// Every promise made on the subscriber's behalf is handled here: an unhandled rejection ends a
// Node process, and a network fault must never end the user's (CONTRACT §5). ioredis's own
// resubscribe after a reconnect is such a promise — it sends SUBSCRIBE and drops the promise, which
// rejects when the reply does not come within the `commandTimeout` the duplicate inherits, or when the
// connection drops again first. So ioredis does not resubscribe (SUBSCRIBER_OPTIONS); the
// subscriber does it itself on every 'ready' after a connection closed (even one that closed before it
// was ever ready: a SUBSCRIBE may have been answered on it), and a resubscribe that fails makes
// the connection again (and so tries again), while waiters meanwhile wake at their scheduled
// attempts. Once it is subscribed again it says so (onBack): a release may have gone unheard meanwhile.
//
// A SUBSCRIBE that times out on a connection that is up makes the connection again too (see
// lostSubscribeReply), and so subscribes again and says so. A SUBSCRIBE that fails undoes only its
// own ask: the channel may have been asked for again meanwhile (channel-asks.ts).
import type { Cluster, Redis } from 'ioredis';
import { isCluster, lostSubscribeReply, pastHandshake, SUBSCRIBER_OPTIONS } from './ioredis-client';
import { ChannelAsks } from './channel-asks';
import { clusterSubscriber } from './cluster-subscriber';
import { quitConnection, unrefConnection } from './connection-ref';
import type { OpenSubscriber } from './redis-notices';

export function ioredisSubscriber(client: Redis | Cluster): OpenSubscriber {
  if (isCluster(client)) return clusterSubscriber(client);
  return (onMessage, _onGone, onBack) => {
    const subscriber = client.duplicate(SUBSCRIBER_OPTIONS);
    /** The channels subscribed, or being subscribed: what a reconnect subscribes again. */
    const channels = new ChannelAsks();
    let closed = false;
    /** A connection closed since the last 'ready' (or since the subscriber was opened). */
    let lost = false;
    // The subscriber never keeps a process alive: a waiter's own hold does that while it waits.
    unrefConnection(subscriber);
    subscriber.on('message', onMessage);
    // Errors surface as failed subscriptions.
    subscriber.on('error', () => undefined);
    subscriber.on('close', () => {
      lost = true;
    });
    subscriber.on('ready', () => {
      const again = lost;
      lost = false;
      if (!again || closed) return;
      const list = channels.channels();
      if (list.length === 0) return onBack(list);
      subscriber.subscribe(...list).then(
        () => onBack(list),
        () => {
          if (!closed && subscriber.status === 'ready') subscriber.disconnect(true);
        },
      );
    });
    return {
      subscribe: (channel) => {
        const ask = channels.ask(channel, undefined);
        return pastHandshake(subscriber)
          .then(() => subscriber.subscribe(channel))
          .catch((error: unknown) => {
            channels.undo(ask);
            // The connection is made again whether or not the ask still stands (lostSubscribeReply).
            if (!closed && lostSubscribeReply(subscriber, error)) subscriber.disconnect(true);
            throw error;
          });
      },
      unsubscribe: (channel) => {
        channels.drop(channel);
        // After the handshake too, so that it stays in order with a SUBSCRIBE of the channel.
        return pastHandshake(subscriber).then(() => subscriber.unsubscribe(channel));
      },
      close: () => {
        closed = true;
        channels.clear();
        return quitConnection(subscriber);
      },
    };
  };
}
