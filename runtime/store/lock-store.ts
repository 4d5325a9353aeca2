// The store is the only part of the runtime that talks to Redis (or stands in for it).
// Everything above it — retries, watchdog, reentrancy, errors — is store-agnostic, which is
// where Redis Cluster, Sentinel or a Redlock quorum plug in: each is another LockStore.
import type { ReleaseFeed } from './release-feed';

export interface LockStore {
  /** One atomic attempt: true when the key was free and now holds `token` for `leaseMs`. */
  tryAcquire(key: string, token: string, leaseMs: number): Promise<boolean>;
  /** Extends the lease when the key still holds `token`; false when it is no longer ours. */
  renew(key: string, token: string, leaseMs: number): Promise<boolean>;
  /** Deletes the key when it still holds `token` and tells waiters; false when it was not ours. */
  release(key: string, token: string): Promise<boolean>;
  /**
   * Replaces our `token` with `nextToken` (lease `leaseMs`) when the key still holds ours: the key
   * passes to a waiter in this process without ever being free. False when it was not ours.
   */
  handover(key: string, token: string, nextToken: string, leaseMs: number): Promise<boolean>;
  /**
   * Whether anyone holds the key now. A caller that has just started to watch for releases asks
   * once, for a release it may have missed before the watch began; it tries again only if so.
   */
  isHeld(key: string): Promise<boolean>;
  /** Where waiters learn that a key was released, by this process or any other. */
  readonly releases: ReleaseFeed;
  /** Closes what the store opened; a store built around a caller's client leaves that client open. */
  close(): Promise<void>;
}
