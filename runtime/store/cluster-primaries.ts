// Noticing that a Redis Cluster's primaries changed — a failover promoted a replica — so that a
// release that failed on the lost primary is sent again at once (LockStore.onceReconnected).
//
// A Cluster never emits 'ready' again for the loss of one node: it stays ready, and learns the new
// primary only when it next refreshes its slot map (on a MOVED, or when asked). So while a release
// waits to be sent again, the map is asked for every POLL_MS, and every refresh that names other
// primaries than before counts as "reconnected".
import type { Cluster } from 'ioredis';
import { setTimer } from '../base/timer-delay';
import type { ClientListeners } from './client-listeners';

const POLL_MS = 200;

export class ClusterPrimaries {
  private last: string;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cluster: Cluster,
    /** The store's listeners on the Cluster, taken off when it closes (client-listeners.ts). */
    listeners: ClientListeners,
    changed: () => void,
  ) {
    this.last = this.owners();
    listeners.on('refresh', () => {
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
      this.timer = setTimer(tick, POLL_MS);
      // A finished process leaves the key to its lease (see Lease.retryRelease): no timer keeps it up.
      this.timer.unref();
    };
    this.timer = setTimer(tick, POLL_MS);
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

/** How long a command waits for a Cluster that is not ready (its first connection, or all nodes lost). */
export const CLUSTER_READY_WAIT_MS = 3_000;

/**
 * Resolves when the Cluster is ready; rejects CLUSTER_READY_WAIT_MS after the first command that
 * waits for it began to (later ones share its wait, and the next one starts another). A command is sent only
 * then: ioredis would hold it in its offline queue with no bound, and send it whenever the cluster
 * came back — an attempt its caller had given up on could then take the key.
 */
export function clusterReady(cluster: Cluster): Promise<void> {
  if (cluster.status === 'ready') return Promise.resolve();
  // A Cluster made with `lazyConnect` connects on its first command, which is sent only after this.
  if (cluster.status === 'wait') cluster.connect().catch(() => undefined);
  // One wait, and one listener, for all commands while the Cluster is not ready: a listener each
  // would pile up in an outage, and past ten Node warns with the Cluster (its options, passwords
  // included) as the warning's `emitter`. See pastHandshake in ioredis-client.ts.
  const waiting = readyWaits.get(cluster);
  if (waiting) return waiting;
  const wait = new Promise<void>((resolve, reject) => {
    const timer = setTimer(() => {
      cluster.off('ready', ready);
      readyWaits.delete(cluster);
      reject(new Error(`Redis Cluster not ready after ${CLUSTER_READY_WAIT_MS} ms (status ${cluster.status})`));
    }, CLUSTER_READY_WAIT_MS);
    timer.unref();
    const ready = () => {
      clearTimeout(timer);
      readyWaits.delete(cluster);
      resolve();
    };
    cluster.once('ready', ready);
  });
  readyWaits.set(cluster, wait);
  return wait;
}

/** The wait of each Cluster that is not ready (clusterReady). */
const readyWaits = new WeakMap<Cluster, Promise<void>>();
