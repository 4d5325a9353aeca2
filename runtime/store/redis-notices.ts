// Release notices from Redis: the release script PUBLISHes (on Cluster SPUBLISHes: release-channel.ts)
// on a channel named after the key, and the process it concerns
// (an empty message when the key was freed, the next holder's token when it was passed on), and
// each process keeps one subscriber connection, subscribed to the two channels (the key's and the
// key's for this process) of each key it has waiters for, which hands the notices to the lock layer.
//
// Why channels per key, subscribed only while someone here waits: a process hears only the
// releases it cares about (one shared channel would deliver every release of every key to
// every process; one per key alone, each pass to every process that waits for it), and a PUBLISH
// that nobody listens to costs Redis a dictionary lookup. The SUBSCRIBE round trip (its two
// channels sent together) is paid once per key per contention episode, while the caller waits
// anyway — and a subscription stays LINGER_MS after the key's last waiter here is gone, so a
// process whose one caller takes a contended key again and again does not pay it, and an
// UNSUBSCRIBE, for every section. Why not keyspace notifications: they need a server setting
// (`notify-keyspace-events`) that managed Redis often forbids, and they fire on every write. The subscriber connection is
// opened only when a caller first has to wait, so uncontended use opens one connection, not two.
//
// Why the subscriber says when it is back: a release announced while its connection was down (cut,
// reset, Redis restarted) reached nobody here, and its waiters would sleep on to their scheduled
// attempts — waitTime, 5 s by default, for a key that is free or passed to one of them. So once its
// channels are subscribed again, their waiters look again (Notice, `missed`); and a key whose
// SUBSCRIBE failed meanwhile is subscribed again then. (A client family that cannot tell — GLIDE,
// node-redis's Cluster, which resubscribe inside the library — leaves its waiters to their schedule.)
//
// Why a failed SUBSCRIBE is also tried again on a timer: it need not come with a lost connection.
// On a loaded machine the subscriber's first connection can take longer than the command timeout,
// and a reply can be lost on a connection that stays up; then no "back" ever comes, and the key's
// waiters heard nothing for the rest of their wait. So a deaf key is subscribed again after
// DEAF_RETRY_FIRST_MS, then ever more slowly up to DEAF_RETRY_MAX_MS, while anyone here waits for
// it (one SUBSCRIBE per key per retry: bounded even when Redis refuses it for good, an ACL say).
import { setTimer } from '../base/timer-delay';
import type { Notice } from './lock-store';
import type { ReleaseChannels } from './release-channel';

/**
 * The subscriber connection as the notices use it; each client family opens its own
 * (ioredis-subscriber.ts, node-redis-client.ts). Commands on it stay in order, and it
 * subscribes again by itself after a reconnect.
 */
export interface Subscriber {
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Opens the subscriber, which hands each message to `onMessage` and never keeps the process
 * alive. One that is gone for good (it stopped reconnecting) calls `onGone`; one that subscribed
 * `channels` again after it lost its connection calls `onBack` (see above).
 */
export type OpenSubscriber = (
  onMessage: (channel: string, message: string) => void,
  onGone: () => void,
  onBack: (channels: readonly string[]) => void,
) => Subscriber;

/** The first retry of a key whose SUBSCRIBE failed, and the slowest (see above). */
const DEAF_RETRY_FIRST_MS = 250;
const DEAF_RETRY_MAX_MS = 2_000;

/**
 * How long a key's subscription stays after its last waiter here is gone (see above). Measured
 * with one caller a process on one key (bench/history.md): without it every section of each
 * caller paid a SUBSCRIBE round trip before its place in line. Notices that come meanwhile find
 * no waiter and are dropped (lock/waiters.ts); only a subscription Redis confirmed stays — one
 * still in flight may never be answered, and a later waiter must not wait on it.
 */
export const LINGER_MS = 1_000;

interface Listener {
  notice: Notice;
  readonly subscribed: Promise<void>;
  /** Redis confirmed the SUBSCRIBE. */
  live: boolean;
  /** Set while nobody here waits for the key: ends the subscription when it fires (LINGER_MS). */
  linger: NodeJS.Timeout | undefined;
}

export class RedisNotices {
  private readonly listeners = new Map<string, Listener>();
  /** The key of each channel listened to. */
  private readonly keys = new Map<string, string>();
  /** Keys listened to whose SUBSCRIBE failed: subscribed again on a timer, or when the subscriber is back. */
  private readonly deaf = new Map<string, Notice>();
  private deafRetry: NodeJS.Timeout | undefined;
  private deafRetryMs = DEAF_RETRY_FIRST_MS;
  private subscriber: Subscriber | undefined;

  constructor(
    private readonly openSubscriber: OpenSubscriber,
    readonly channels: ReleaseChannels,
  ) {}

  /** Whether anyone here waits for notices (a subscriber may stop reconnecting when nobody does). */
  get listening(): boolean {
    for (const listener of this.listeners.values()) if (!listener.linger) return true;
    return false;
  }

  async listen(key: string, notice: Notice): Promise<void> {
    let listener = this.listeners.get(key);
    if (listener) {
      listener.notice = notice;
      clearTimeout(listener.linger);
      listener.linger = undefined;
    } else {
      this.deaf.delete(key);
      const subscriber = this.connect();
      const channels = this.channelsOf(key);
      for (const channel of channels) this.keys.set(channel, key);
      const subscribed = Promise.all(channels.map((channel) => subscriber.subscribe(channel))).then(
        () => void (made.live = true),
      );
      const made: Listener = { notice, subscribed, live: false, linger: undefined };
      this.listeners.set(key, (listener = made));
    }
    try {
      await listener.subscribed;
    } catch (error) {
      // Subscribed again by a later listen(), the retry timer or the subscriber's return (back());
      // meanwhile waiters wake at their scheduled attempts.
      if (this.listeners.get(key) === listener) {
        // Its other SUBSCRIBE may have been answered: undone with it, as when nobody waits.
        this.unsubscribe(key);
        this.deaf.set(key, notice);
        this.retryDeafLater();
      }
      throw error;
    }
  }

  /** Whether the key's notices are delivered here now: subscribed, and Redis confirmed it. */
  hears(key: string): boolean {
    return this.listeners.get(key)?.live === true;
  }

  /** Nobody here waits for the key any more: its subscription ends, a confirmed one after LINGER_MS (see above). */
  unlisten(key: string): void {
    this.deaf.delete(key);
    const listener = this.listeners.get(key);
    if (!listener || listener.linger) return;
    if (!listener.live) return this.unsubscribe(key);
    // Unref'd: a subscription nobody waits on must not keep the process alive.
    listener.linger = setTimer(() => {
      if (this.listeners.get(key) === listener) this.unsubscribe(key);
    }, LINGER_MS);
    listener.linger.unref();
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.forgetAll();
    this.deaf.clear();
    clearTimeout(this.deafRetry);
    this.deafRetry = undefined;
    if (subscriber) await subscriber.close();
  }

  private unsubscribe(key: string): void {
    // Commands on one connection stay in order, so a later SUBSCRIBE of this key lands after it.
    for (const channel of this.forget(key)) this.subscriber?.unsubscribe(channel).catch(() => undefined);
  }

  /** The key's channels a process listens on: the key's own and the key's for this process (release-channel.ts). */
  private channelsOf(key: string): [string, string] {
    return [this.channels.of(key), this.channels.ofThisProcess(key)];
  }

  private forget(key: string): [string, string] {
    const channels = this.channelsOf(key);
    clearTimeout(this.listeners.get(key)?.linger);
    this.listeners.delete(key);
    for (const channel of channels) this.keys.delete(channel);
    return channels;
  }

  private forgetAll(): void {
    for (const listener of this.listeners.values()) clearTimeout(listener.linger);
    this.listeners.clear();
    this.keys.clear();
  }

  private connect(): Subscriber {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.openSubscriber(
      (channel, message) => {
        const key = this.keys.get(channel);
        if (key !== undefined) this.listeners.get(key)?.notice(key, message === '' ? undefined : message);
      },
      () => {
        // Gone for good: its subscriptions with it. The next listen() opens another subscriber and
        // subscribes again; meanwhile waiters wake at their scheduled attempts.
        if (this.subscriber !== subscriber) return;
        this.subscriber = undefined;
        this.forgetAll();
      },
      (channels) => {
        if (this.subscriber === subscriber) this.back(channels);
      },
    );
    return (this.subscriber = subscriber);
  }

  /** The subscriber subscribed `channels` again after it lost its connection (see above). */
  private back(channels: readonly string[]): void {
    // Each key once, though two of its channels came back.
    const keys = new Set(channels.map((channel) => this.keys.get(channel)));
    for (const key of keys) if (key !== undefined) this.listeners.get(key)?.notice(key, undefined, true);
    this.listenAgain();
  }

  /** Subscribes the deaf keys again, each of whose waiters then looks (a release may have gone unheard). */
  private listenAgain(): void {
    for (const [key, notice] of [...this.deaf]) {
      this.deaf.delete(key);
      this.listen(key, notice).then(
        () => {
          this.deafRetryMs = DEAF_RETRY_FIRST_MS;
          notice(key, undefined, true);
        },
        () => undefined, // deaf again: listen() set the next retry
      );
    }
  }

  private retryDeafLater(): void {
    if (this.deafRetry) return;
    const ms = this.deafRetryMs;
    this.deafRetryMs = Math.min(ms * 2, DEAF_RETRY_MAX_MS);
    // Unref'd: a waiter's own hold keeps the process alive while it waits, the retry does not.
    this.deafRetry = setTimer(() => {
      this.deafRetry = undefined;
      this.listenAgain();
    }, ms);
    this.deafRetry.unref();
  }
}
