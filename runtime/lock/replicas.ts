// Option `replicas`: a grant counts only once that many replicas have it (Redis WAIT on the
// connection that made it). With asynchronous replication a primary that dies right after a grant
// may take it along, and the replica promoted in its place would give the key to a second caller
// while the first still runs its body. A grant too few replicas acknowledge in time is given back
// and the acquisition fails (acquire.ts) — it does not try again: a replica that did not answer
// within the wait is down or far behind, and would not answer the next attempt's either.
import type { LockStore } from '../store/lock-store';

/**
 * The longest WAIT for replicas: a replica that is up acknowledges within a round trip of the
 * grant; one that has not in a second is down or far behind. Kept under the command timeout of
 * the connections the runtime opens (2 s), so WAIT answers rather than times out.
 */
const REPLICA_WAIT_MAX_MS = 1_000;

export interface ReplicaSettings {
  readonly replicas: number;
  readonly waitTime: number;
  readonly lockTime: number;
}

/** How long WAIT waits: no longer than a caller's waitTime, nor a third of the lease (the first renewal is due then). */
export function replicaWaitMs(settings: ReplicaSettings): number {
  return Math.max(1, Math.min(REPLICA_WAIT_MAX_MS, settings.waitTime, Math.floor(settings.lockTime / 3)));
}

/** Undefined once enough replicas have the grant just made; else an error that says how many did. */
export async function replicaShortfall(store: LockStore, settings: ReplicaSettings): Promise<Error | undefined> {
  if (!store.waitForReplicas)
    throw new TypeError(
      'lockweave: option replicas > 0 needs a store that can ask for replicas (Redis WAIT); this store cannot',
    );
  const timeoutMs = replicaWaitMs(settings);
  const acknowledged = await store.waitForReplicas(settings.replicas, timeoutMs);
  if (acknowledged >= settings.replicas) return undefined;
  return new Error(
    `${acknowledged} of ${settings.replicas} replica(s) acknowledged the grant within ${timeoutMs} ms (WAIT); it was given back`,
  );
}
