// Noticing that a Redis Cluster's primaries changed — a failover promoted a replica — so that a
// release that failed on the lost primary is sent again at once (LockStore.onceReconnected).
//
// A Cluster never emits 'ready' again for the loss of one node: it stays ready, and learns the new
// primary only when it next refreshes its slot map (on a MOVED, or when asked). So while a release
// waits to be sent again, the map is asked for every POLL_MS, and every refresh that names other
// primaries than before counts as "reconnected".
import type { Cluster } from 'ioredis';

const POLL_MS = 200;

export class ClusterPrimaries {
  private last: string;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cluster: Cluster,
    changed: () => void,
  ) {
    this.last = this.owners();
    cluster.on('refresh', () => {
      const now = this.owners();
      if (now === this.last) return;
      this.last = now;
      changed();
    });
  }

  /** Refreshes the slot map every POLL_MS for as long as `wanted()`. */
  watchWhile(wanted: () => boolean): void {
    if (this.timer) return;
    const tick = () => {
      this.timer = undefined;
      if (!wanted() || this.cluster.status === 'end') return;
      (this.cluster as unknown as { refreshSlotsCache(done?: () => void): void }).refreshSlotsCache();
      this.timer = setTimeout(tick, POLL_MS);
      // A finished process leaves the key to its lease (see Lease.retryRelease): no timer keeps it up.
      this.timer.unref();
    };
    this.timer = setTimeout(tick, POLL_MS);
    this.timer.unref();
  }

  /** The primary of each slot range, in slot order. */
  private owners(): string {
    const slots = (this.cluster as unknown as { slots: string[][] }).slots;
    let owners = '';
    let previous: string | undefined;
    for (const nodes of slots) {
      const primary = nodes?.[0];
      if (primary !== previous) owners += `${primary};`;
      previous = primary;
    }
    return owners;
  }
}
