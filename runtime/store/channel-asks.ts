// The channels a subscriber of release notices was asked to listen on (redis-notices.ts), each with
// the ask that put it there: what it subscribes again after a reconnect, and what a failed
// SUBSCRIBE may undo.
//
// Why each ask is kept, not only the channel: a SUBSCRIBE can fail long after it was sent. Its
// connection cut while it was in flight, it fails when its command timeout runs out (ioredis drops
// an unanswered command when it reconnects); it waited in node-redis's offline queue past its bound.
// Meanwhile its waiters may have gone and others come for the same key, whose UNSUBSCRIBE and new
// SUBSCRIBE were answered. The late failure must undo only itself. Had it dropped the channel, the
// subscriber's next reconnect would not subscribe it again (or its undo would send an UNSUBSCRIBE
// after the new SUBSCRIBE), and the key's new waiters, listening as far as redis-notices.ts knows,
// would hear no release for as long as any of them waits. Found under connection faults: two
// callers of one process waited their whole bound for a hot key other processes locked all along —
// each time the line passed the key to one of them, the pass went unheard and was taken back.
// (test/faults/missed-notices.test.ts, "a SUBSCRIBE that fails after its key was listened to again".)

/** One ask to listen on `channel`; `at` is where a sharded subscriber asked it (its primary). */
export interface ChannelAsk<At> {
  readonly channel: string;
  readonly at: At;
}

export class ChannelAsks<At = undefined> {
  private readonly latest = new Map<string, ChannelAsk<At>>();

  /** Records a new ask for `channel`, which supersedes any before it. */
  ask(channel: string, at: At): ChannelAsk<At> {
    const ask = { channel, at };
    this.latest.set(channel, ask);
    return ask;
  }

  /** The channel is no longer wanted (an UNSUBSCRIBE): returns its last ask, if there was one. */
  drop(channel: string): ChannelAsk<At> | undefined {
    const ask = this.latest.get(channel);
    this.latest.delete(channel);
    return ask;
  }

  /** A failed ask: the channel is dropped only if no later ask or drop of it came. Returns whether it was. */
  undo(ask: ChannelAsk<At>): boolean {
    if (this.latest.get(ask.channel) !== ask) return false;
    this.latest.delete(ask.channel);
    return true;
  }

  /** Whether `ask` is still the channel's latest. */
  holds(ask: ChannelAsk<At>): boolean {
    return this.latest.get(ask.channel) === ask;
  }

  get size(): number {
    return this.latest.size;
  }

  /** The channels asked for, in the order first asked. */
  channels(): string[] {
    return [...this.latest.keys()];
  }

  /** Every standing ask. */
  asks(): ChannelAsk<At>[] {
    return [...this.latest.values()];
  }

  clear(): void {
    this.latest.clear();
  }
}
