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
  /** True when the waiter wants a fencing token with the key (see `Grant`). */
  readonly fenced?: boolean;
  /**
   * The fencing token of the grant that gave this waiter the key, which the store sets when it
   * grants a `fenced` waiter the key: by an attempt in turn, or by a release that hands it over.
   */
  fence?: number;
}

/**
 * What an attempt got: `false`, not the key; `true`, the key; a number, the key with that fencing
 * token (asked for with `fenced`). A key's tokens increase with every fenced grant of it, by every
 * path (see scripts/line-helpers.ts for what holds across a failover). A store that cannot fence
 * rejects a fenced attempt with FencingUnavailableError (base/errors.ts, fatal: the caller fails at
 * once); one that ignores `fenced` and answers `true` is caught above it (lock/acquire.ts gives the
 * key back and fails the caller).
 */
export type Grant = boolean | number;

/**
 * What a release did (the store's three succession outcomes, lock/succession.ts): the key was not
 * ours (`not-ours`: nothing changed); free (`freed`: nobody waited); hand-over to the successor the
 * releaser named, with that waiter's full lease (`handed`); or pass to the first waiter in line with
 * a claim (`passed`), and a notice tells it.
 */
export type Released = 'not-ours' | 'freed' | 'handed' | 'passed';

/**
 * What a release asks of the store about who gets the key next (lock/succession.ts decides it;
 * the release script carries it out). A release that asks nothing passes the key to the line or
 * frees it.
 */
export interface SuccessionRequest {
  /** A waiter of this process to hand the key over to: its full lease, under its own token. */
  readonly successor?: PlaceInLine;
  /** The successor may go ahead of the line (its process's cohort is not full). */
  readonly goesAhead?: boolean;
  /**
   * Waiters to take out of the line first: they took the grant over, and their takeOver() may not
   * have been applied yet.
   */
  readonly leavingLine?: readonly string[];
  /** Announce a freed key even though nobody stands in its line (Redlock's waiters take no place). */
  readonly announceFree?: boolean;
  /**
   * Told, when the free key was announced, how many subscribers the announcement reached: every
   * process that listens for the key, this one among them (Redlock: whether other processes wait).
   */
  readonly onAnnounced?: (heardBy: number) => void;
}

/**
 * What a key's lock looks like at one moment (LockStore.inspect): for code, tests and the CLI, never
 * for deciding who holds a lock — the answer is old by the time it arrives.
 */
export interface KeyState {
  /** Some caller holds the key (or a claim on it), in whatever process. */
  readonly held: boolean;
  /** What is left of its lease; undefined when free, or when the key has no TTL (not lockweave's). */
  readonly ttlMs: number | undefined;
  /** Callers waiting in the key's line whose places have not lapsed; undefined on a store without a line. */
  readonly waiters: number | undefined;
  /** The key's last fencing token given out; undefined when it was never locked with fencing. */
  readonly fence: number | undefined;
}

/** What a Redlock server's renewal did (LockStore.regrant): extended our key, set it again where it was absent, or neither. */
export type Regranted = 'renewed' | 'regranted' | 'not-ours';

/**
 * A release notice: `key` was freed (`passedTo` undefined), or passed with a claim to the waiter
 * whose token is `passedTo` (after BINDING when the pass binds: passOf reads it). A pass reaches
 * the process of that waiter and of the next in line, who watches the claim (release-channel.ts);
 * a key freed, every process that listens for it, the
 * releaser's own included. With `missed`, no release was heard but one may have been missed: the
 * store stopped hearing the key's notices a while (its subscriber's connection was lost, then
 * subscribed again) — every waiter of the key looks again.
 */
export type Notice = (key: string, passedTo: string | undefined, missed?: boolean) => void;

/**
 * How long a key passed to a waiter is that waiter's claim, until its next attempt makes the key
 * its own for its full lease (before its body starts). A live waiter does so within a round trip
 * of the notice. One that does not — its process stalled, its connection cut — may lose the claim
 * sooner to the next waiter in line, whose process saw the claim go unconfirmed (lock/waiters.ts,
 * CLAIM_FIRM_MS; `tryAcquireInTurn`'s `staleClaim`); a claim nobody takes up keeps the key this long,
 * then frees it. A waiter whose attempt comes too late takes its place in line again, the same place.
 */
export const CLAIM_MS = 2_000;

/**
 * A pass **binds** when its waiter names its process (a token of this runtime: process-tag.ts) and
 * took its place in line less than this long before: the release script gives it the key for its own
 * lease (the one its first attempt in turn noted beside its place), as a hand-over does, with no
 * claim's mark — nobody may take it over — and tells its process alone, BINDING before the token;
 * only if that process hears it (the PUBLISH reached a subscriber: a process that died, its
 * connections closed by its host, reaches none, and its waiter gets a claim the next in line takes).
 * The waiter's body then starts on the notice, without the confirming round trip, its lease counted
 * from that first attempt's send: the pass, and the key's PX, came after it (lock/waiters.ts,
 * passed). A waiter that hears of it later than this after that send, or that must take a fencing
 * token or wait for replicas, confirms it with an attempt first. The price is a stalled or lost
 * waiter's: a binding pass to a process that stalls, or whose host vanished without closing its
 * connections, keeps the key as long as that stall or its waiter's lease — as a holder's would —
 * not CLAIM_FIRM_MS; so only a waiter that came a moment ago, alive then, is given one.
 *
 * Why 100 ms: what a binding pass saves is one round trip; what it risks is a stall of the waiter's
 * process since its place, which a claim would bound at CLAIM_FIRM_MS. Waits behind short sections,
 * where that round trip is a real part of each hand-off, are a few to a few tens of milliseconds
 * (S3's and S4's p99 ~15–35 ms: every pass there binds); a waiter that stood in line longer waits behind
 * sections long enough that the round trip is lost in them, and gets a claim. 500 ms read 2–4% fewer
 * sections a second under connection faults (bench/history.md) and nothing more in S3 or S4.
 */
export const BINDS_WITHIN_MS = 100;

/** What a binding pass's notice puts before the waiter's token (see BINDS_WITHIN_MS). */
export const BINDING = '!';

/** A pass's notice read: the waiter's token, and whether the pass binds (BINDS_WITHIN_MS). */
export function passOf(notice: string): { readonly token: string; readonly binding: boolean } {
  return notice.startsWith(BINDING)
    ? { token: notice.slice(BINDING.length), binding: true }
    : { token: notice, binding: false };
}

export interface LockStore {
  /**
   * One atomic attempt by a caller that has not waited: truthy when the key was free and now holds
   * `token` — with `fenced`, the key's next fencing token.
   */
  tryAcquire(key: string, token: string, leaseMs: number, fenced?: boolean): Promise<Grant>;
  /**
   * An attempt by a caller that waits: takes or keeps its place in the key's line, and takes the
   * key when it is its turn (first in line with the key free) or when the key holds its token
   * already (passed to it). True when the key now holds the waiter's token for its lease (and, for
   * a `fenced` waiter, its `fence` is set).
   *
   * `staleClaim`: the token of a claim this waiter's process saw passed to another waiter and not
   * confirmed for a while. When the key still holds that claim, unconfirmed, the key counts as free:
   * the waiter takes it if it is first in line, and the claim's waiter, when it comes, finds the key
   * taken and stands in line again at its own place. A claim that was confirmed is a lease, and
   * stays its holder's.
   */
  tryAcquireInTurn(key: string, waiter: PlaceInLine, staleClaim?: string): Promise<boolean>;
  /** Extends the lease when the key still holds `token`; false when it is no longer ours. */
  renew(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * A renewal as one of Redlock's servers makes it (redlock-store.ts): extends the key where it
   * holds `token`, sets it to `token` for `leaseMs` where it is absent, and touches another's.
   * A store that is no Redlock server needs none.
   */
  regrant?(key: string, token: string, leaseMs: number): Promise<Regranted>;
  /**
   * When the key holds `token`, gives it on as the release script decides (store/scripts/release.ts):
   * hand-over to `succession.successor` (a waiter of this process) with its full lease when it is
   * first in line, or when it stands in line and `succession.goesAhead` (and, for a `fenced`
   * successor, its `fence`); else pass to the first waiter in line with a claim; else free. Who is
   * named, and whether it goes ahead, is lock/succession.ts's decision.
   */
  release(key: string, token: string, succession?: SuccessionRequest): Promise<Released>;
  /**
   * A waiter of this process takes over the grant of a holder that is done with it, without a
   * release (see lock/lease.ts, Lease.release): when the key still holds `token`, renews it for
   * `leaseMs` and takes `waiterToken` out of the key's line. False when the key is no longer ours.
   * A store without it passes a key on by release() only.
   */
  takeOver?(key: string, token: string, leaseMs: number, waiterToken: string): Promise<boolean>;
  /**
   * A waiter gives up: takes `token` out of the key's line, and releases the key as release() does
   * should it hold `token` after all (an attempt whose answer was lost, or a pass just made).
   */
  leave(key: string, token: string): Promise<Released>;
  /**
   * Waits until `replicas` replicas have every write this store's connection has made — the grant
   * just made among them — or until `timeoutMs` has passed; resolves how many had them then (Redis
   * `WAIT`). A store that cannot ask the server that made the grant has none, or rejects.
   */
  waitForReplicas?(replicas: number, timeoutMs: number): Promise<number>;
  /**
   * An operator's removal of a stuck lock, whoever holds it (the CLI's `unlock --force`), announced
   * as a release that frees the key: its waiters try at once. True when there was a key to remove.
   * Never called by the lock itself: every other verb is token-checked.
   */
  forceUnlock?(key: string): Promise<boolean>;
  /** What the key's lock looks like now (read-only). A store without it cannot be inspected. */
  inspect?(key: string): Promise<KeyState>;
  /** Starts delivering the notices of `key` to `notice`; resolves once they are delivered. */
  listen(key: string, notice: Notice): Promise<void>;
  /** Stops delivering the notices of `key`. */
  unlisten(key: string): void;
  /**
   * Whether the notices of `key` are delivered here now, with nobody to ask again: a waiter added
   * for it hears them at once. True for a while after the key's last waiter here (redis-notices.ts,
   * LINGER_MS): the key was contended a moment ago. A store without it is never asked.
   */
  hears?(key: string): boolean;
  /**
   * Calls `listener` once, the next time the store's connection is back after it was lost; returns
   * a function that cancels that. (A release that could not be sent is sent again at that moment.)
   * A store without a connection to lose has none.
   */
  onceReconnected?(listener: () => void): () => void;
  /**
   * How much less than its lease a grant is known to last: the drift between this process's clock
   * and the servers' over one lease (Redlock), by which a holder counts its lease short. 0 when absent.
   */
  clockDriftMs?(leaseMs: number): number;
  /**
   * Which server answers this store's commands, the same for every address it is reached by: a
   * Redis server's `run_id` (INFO server), new at each start of the server process. Redlock uses it
   * to find one server named under two addresses (redlock-store.ts). Undefined when the server
   * will not say (INFO refused by an ACL, or without a run_id); rejects when it could not be asked
   * (the connection is down): ask again later. A store without it cannot be told apart but by address.
   */
  serverId?(): Promise<string | undefined>;
  /**
   * The error for an attempt that got no answer within `waitedMs` (its caller gave up on it), naming
   * the server and what is known of why. A store without one gets a generic error.
   */
  silence?(waitedMs: number): Error;
  /**
   * Whether an attempt given to the store just now settles within `ms` by the store's own bound on
   * its commands: then the caller's deadline needs no timer of its own for it (lock/acquire.ts,
   * answered). A store without it, or that says no, has its attempts timed by the caller.
   */
  settlesWithin?(ms: number): boolean;
  /** Closes what the store opened; a store built around a caller's client leaves that client open. */
  close(): Promise<void>;
}
