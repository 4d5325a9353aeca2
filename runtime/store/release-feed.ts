// Wake-ups for waiters: a waiter sleeps until the key it wants is released or its wait ends.
//
// Why an epoch and not a plain event: a release can land between a waiter's failed attempt
// and the moment it starts to sleep. Each watch counts the releases it has seen; a waiter
// notes the count before attempting and, if it moved by the time it would sleep, tries again
// at once. No release is missed, and no fixed sleep is taken while the holder is already gone.
//
// Why wake one and not all: the waiters of one process that want the same key would all race
// for it, and all but one would lose. The oldest sleeping watcher is woken; it attempts, and
// if another process wins, it sleeps again until the next release.
//
// Handoff: when a holder in this process releases a key that a watcher here sleeps on, the
// store can pass the key straight to that watcher (one compare-and-SET instead of a delete, a
// notice and a new SET). The watcher is reserved first, so its own timer cannot make it give up
// while the handover is in flight, and then granted the new token, or released to try as usual.
// At most MAX_HANDOFF_STREAK handoffs follow each other; then the key is really released, so
// waiters in other processes get their turn.

import { timerDelay } from '../base/timer-delay';

export const MAX_HANDOFF_STREAK = 8;

export interface ReleaseFeed {
  /** Starts watching `key`. Resolves once releases are being delivered (e.g. after SUBSCRIBE). */
  watch(key: string, leaseMs: number): Promise<ReleaseWatch>;
  /** Picks and reserves the watcher that a local release of `key` may hand the key to, if any. */
  reserveSuccessor(key: string): ReleaseWatch | undefined;
  /** True while callers in this process wait for `key`. */
  isWatched(key: string): boolean;
}

export interface Grant {
  readonly token: string;
  /** When the handing-over command was sent: the new lease started no earlier. */
  readonly sentAt: number;
}

export class ReleaseWatch {
  /** Releases of the key seen since the watch began. */
  epoch = 0;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reserved = false;
  private grant: Grant | undefined;

  constructor(
    readonly key: string,
    /** The lease the watcher asks for, used when the key is handed to it. */
    readonly leaseMs: number,
    private readonly detach: (watch: ReleaseWatch) => void,
  ) {}

  /** Asleep and free to be woken or reserved. */
  get available(): boolean {
    return this.wake !== undefined && !this.reserved;
  }

  /** Sleeps until a release after `seenEpoch`, a grant, or `timeoutMs`; returns at once if a release came already. */
  sleep(seenEpoch: number, timeoutMs: number): Promise<void> {
    if (this.epoch !== seenEpoch || timeoutMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      // Ref'd on purpose: someone is awaiting this lock, so the process must stay up for it.
      // A clamped wait wakes early: the caller then makes a scheduled attempt and waits again.
      this.timer = setTimeout(() => this.reserved || this.awaken(), timerDelay(timeoutMs));
    });
  }

  /** The key was handed to this watcher, if it was: taken once. */
  takeGrant(): Grant | undefined {
    const grant = this.grant;
    this.grant = undefined;
    return grant;
  }

  /** Called by the feed when the key was released. */
  awaken(): void {
    const wake = this.wake;
    if (!wake) return;
    this.wake = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    wake();
  }

  /** Holds the watcher asleep while a handover to it is in flight. */
  reserve(): void {
    this.reserved = true;
  }

  /** The handover succeeded: wake with the key already ours. */
  granted(grant: Grant): void {
    this.reserved = false;
    this.grant = grant;
    this.awaken();
  }

  /** The handover did not happen: wake and try as usual. */
  unreserve(): void {
    this.reserved = false;
    this.awaken();
  }

  close(): void {
    this.awaken();
    this.detach(this);
  }
}

/** Keeps the watches of one process and routes release notices to them. */
export class WatcherRegistry {
  private readonly watches = new Map<string, ReleaseWatch[]>();
  private readonly handoffStreaks = new Map<string, number>();

  /** `onIdle` is told when the last watch of a key closes (e.g. to UNSUBSCRIBE). */
  constructor(private readonly onIdle: (key: string) => void = () => undefined) {}

  add(key: string, leaseMs: number): ReleaseWatch {
    const watch = new ReleaseWatch(key, leaseMs, (closed) => this.remove(closed));
    const list = this.watches.get(key);
    if (list) list.push(watch);
    else this.watches.set(key, [watch]);
    return watch;
  }

  has(key: string): boolean {
    return this.watches.has(key);
  }

  /** A key was released: every watch counts it, the oldest sleeping one is woken. */
  released(key: string): void {
    this.handoffStreaks.delete(key);
    const list = this.watches.get(key);
    if (!list) return;
    for (const watch of list) watch.epoch++;
    list.find((watch) => watch.available)?.awaken();
  }

  reserveSuccessor(key: string): ReleaseWatch | undefined {
    const successor = this.watches.get(key)?.find((watch) => watch.available);
    if (!successor) return undefined;
    const streak = this.handoffStreaks.get(key) ?? 0;
    if (streak >= MAX_HANDOFF_STREAK) {
      this.handoffStreaks.delete(key);
      return undefined;
    }
    this.handoffStreaks.set(key, streak + 1);
    successor.reserve();
    return successor;
  }

  private remove(watch: ReleaseWatch): void {
    const list = this.watches.get(watch.key);
    if (!list) return;
    const index = list.indexOf(watch);
    if (index >= 0) list.splice(index, 1);
    if (list.length > 0) return;
    this.watches.delete(watch.key);
    this.handoffStreaks.delete(watch.key);
    this.onIdle(watch.key);
  }
}
