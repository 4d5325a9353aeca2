// Wake-ups for waiters: a waiter sleeps until the key it wants is released or its wait ends.
//
// Why an epoch and not a plain event: a release can land between a waiter's failed attempt
// and the moment it starts to sleep. Each watch counts the releases it has seen; a waiter
// notes the count before attempting and, if it moved by the time it would sleep, tries again
// at once. No release is missed, and no fixed sleep is taken while the holder is already gone.
//
// Why wake one and not all: the waiters of one process that want the same key would all race
// for it, and all but one would lose. The oldest waiting watcher is woken; it attempts, and
// if another process wins, it sleeps again until the next release.

export interface ReleaseFeed {
  /** Starts watching `key`. Resolves once releases are being delivered (e.g. after SUBSCRIBE). */
  watch(key: string): Promise<ReleaseWatch>;
}

export class ReleaseWatch {
  /** Releases of the key seen since the watch began. */
  epoch = 0;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly key: string,
    private readonly detach: (watch: ReleaseWatch) => void,
  ) {}

  get sleeping(): boolean {
    return this.wake !== undefined;
  }

  /** Sleeps until a release after `seenEpoch`, or `timeoutMs`; returns at once if one came already. */
  sleep(seenEpoch: number, timeoutMs: number): Promise<void> {
    if (this.epoch !== seenEpoch || timeoutMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      // Ref'd on purpose: someone is awaiting this lock, so the process must stay up for it.
      this.timer = setTimeout(() => this.awaken(), timeoutMs);
    });
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

  close(): void {
    this.awaken();
    this.detach(this);
  }
}

/** Keeps the watches of one process and routes release notices to them. */
export class WatcherRegistry {
  private readonly watches = new Map<string, ReleaseWatch[]>();

  add(key: string): ReleaseWatch {
    const watch = new ReleaseWatch(key, (closed) => this.remove(closed));
    const list = this.watches.get(key);
    if (list) list.push(watch);
    else this.watches.set(key, [watch]);
    return watch;
  }

  /** A key was released: every watch counts it, the oldest sleeping one is woken. */
  released(key: string): void {
    const list = this.watches.get(key);
    if (!list) return;
    for (const watch of list) watch.epoch++;
    list.find((watch) => watch.sleeping)?.awaken();
  }

  get size(): number {
    return this.watches.size;
  }

  private remove(watch: ReleaseWatch): void {
    const list = this.watches.get(watch.key);
    if (!list) return;
    const index = list.indexOf(watch);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.watches.delete(watch.key);
  }
}
