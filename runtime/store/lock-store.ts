// The store is the only part of the runtime that talks to Redis (or stands in for it). It
// offers the verbs below and keeps their promises; everything above it — the schedule of
// attempts, who of this process's waiters is woken, the watchdog, reentrancy — is lock/'s.

/** A caller waiting for a key, as the key's line of waiters knows it. */
export interface PlaceInLine {
  /** The token the waiter will hold the key with: one per caller, the same in every attempt. */
  readonly token: string;
  readonly leaseMs: number;
  /** How long its place lasts without another attempt; then the line may drop it. */
  readonly placeLastsMs: number;
  /** Its place, which the store sets on the waiter's first attempt and keeps for the later ones. */
  place: string | undefined;
  /** The store's clock (ms) when it last answered an attempt of this waiter with "not yet". */
  answeredAt: number | undefined;
}

/** A key passed to a waiter: its token, and the store's clock (ms) when the release passed it. */
export interface Pass {
  readonly token: string;
  readonly at: number;
}

/**
 * What a release did: the key was not ours (`not-ours`: nothing changed); it is free (`freed`:
 * nobody waited); it went to the successor the releaser named, with that waiter's full lease
 * (`handed`); or it went to the first waiter in line with a claim (`passed`), and a notice tells it.
 */
export type Released = 'not-ours' | 'freed' | 'handed' | 'passed';

/**
 * A release notice: `key` was freed (`pass` undefined), or passed to a waiter with a claim.
 * Notices reach every process that listens for the key, the releaser's own included.
 */
export type Notice = (key: string, pass: Pass | undefined) => void;

/**
 * How long a key passed to a waiter in another process is its claim, until that waiter renews it
 * to its full lease. A live waiter does so within a round trip of the notice; a claim nobody takes
 * up — its waiter's process died — keeps the key from everyone else this long, then frees it.
 */
export const CLAIM_MS = 2_000;

export interface LockStore {
  /** One atomic attempt by a caller that has not waited: true when the key was free and now holds `token`. */
  tryAcquire(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * An attempt by a caller that waits: takes or keeps its place in the key's line, and takes the
   * key when it is its turn (first in line with the key free) or when the key holds its token
   * already (passed to it). True when the key now holds the waiter's token for its lease.
   */
  tryAcquireInTurn(key: string, waiter: PlaceInLine): Promise<boolean>;
  /** Extends the lease when the key still holds `token`; false when it is no longer ours. */
  renew(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Takes `token` out of the key's line (a waiter that gives up calls this too) and, when the key
   * holds `token`, gives it to the first waiter in line, or frees it when nobody waits. A
   * `successor` of this process that is first in line gets it with its full lease.
   */
  release(key: string, token: string, successor?: PlaceInLine): Promise<Released>;
  /** Starts delivering the notices of `key` to `notice`; resolves once they are delivered. */
  listen(key: string, notice: Notice): Promise<void>;
  /** Stops delivering the notices of `key`. */
  unlisten(key: string): void;
  /** Closes what the store opened; a store built around a caller's client leaves that client open. */
  close(): Promise<void>;
}
