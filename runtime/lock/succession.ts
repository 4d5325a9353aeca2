// Succession: what becomes of a key when its holder is done with it. This file decides; the lease
// carries the decision out (lease.ts, Lease.release); the release script makes the store's half of
// it, atomically, on the key's server (store/scripts/release.ts). There are exactly four outcomes:
//
//   take-over  The holder gives its grant — its token and the expiry it knows — to a waiter of its
//              own process, without a release. Decided here (decideSuccession), in process.
//   hand-over  The release script gives the key to the waiter this process named as successor,
//              under the successor's own token, with its full lease; the holder wakes it with the
//              key already its own — no notice, no round trip. Asked for here (the successor, and
//              whether it goes ahead); made by the script when that waiter is first in line, or
//              stands in line and goes ahead.
//   pass       Otherwise the release script gives the key to the first live waiter in line, in any
//              process, as a claim (CLAIM_MS, store/lock-store.ts) and PUBLISHes its token; that
//              waiter's next attempt makes the key its own, full lease, before its body starts
//              (store/scripts/acquire-in-turn.ts). A claim nobody takes up frees the key when it ends.
//   free       Nobody waits: the script deletes the key (announced only where waiters take no place
//              in line, Redlock: store/scripts/release.ts says why); on a notice the oldest
//              sleeper of each listening process tries (lock/waiters.ts).
// A lease with autoUnlock off is not released at all: its key lapses at the end of its lease.
// (MemoryLockStore makes the script's choice in TypeScript; docs/protocol.md has the whole protocol.)
//
// Which waiter of this process is named successor: the oldest sleeper for the key that no other
// release has reserved (a waiter still making an attempt is not asleep, and is not named). It is
// reserved before the release is sent, so its own timer cannot make it give up while the release
// that may hand it the key is in flight.
//
// Cohorts: strict arrival order would send nearly every release of a key that several processes
// contend for across to another process, each pass costing a notice and a confirming round trip
// (measured: 40% of the throughput of 4 processes × 4 callers on one key). So the successor may go
// ahead of the line — the cohort-locking idea — up to MAX_COHORT hand-overs or take-overs in a row;
// then the key goes to the first in line, whichever process it is in. Who goes next across
// processes is still the line's decision, and a waiter is overtaken by at most MAX_COHORT sections
// per turn of another process: waits stay bounded, and well within a caller's wait bound.
//
// Why take-over is safe: the successor's body starts at once, under the holder's token, with no
// round trip between one body and the next, and nothing is sent for it. The key is ours until the
// holder's `expiresAt` (the margin in mayTakeOver keeps at least half the successor's lease of that);
// the successor's lease counts from no later; its watchdog's first renewal (LockStore.takeOver, when
// two thirds of its lease are left) extends the key for its lease or finds it lost, as any renewal
// would (its signal aborts then). Across processes nothing changes: the same cohort rule bounds how
// often it happens in a row.
//
// leavingLine: a waiter that took a grant over still stands in the key's line until a take-over
// script takes it out — its lease's first renewal, should its body last that long; or a release of
// the grant, which may also overtake a take-over script still on its way (a script the server had to
// be sent again, NOSCRIPT). Either way the release must not pass the key to the waiter's old place:
// every release of the grant names the waiters still in line, and the script takes them out first.
// A grant is taken over at most MAX_COHORT times while they stand in line (mayTakeOver).
import type { LockStore, Released, SuccessionRequest } from '../store/lock-store';
import type { Waiter, Waiters } from './waiters';

/** Hand-overs (and take-overs) in a row within one process before a key must go to the first in line. */
export const MAX_COHORT = 8;

/**
 * What the leases one grant passes through (take-overs) share: made by its holder at the first
 * take-over, and handed along.
 */
export interface SharedGrant {
  readonly token: string;
  /**
   * The latest the key may last (Lease.mayLastUntil): a release is sent again until then. Shared,
   * as a renewal sent before a take-over may be answered after it: the key lasts a lease from then.
   */
  mayLastUntil: number;
  /** The waiters that took the grant over and still stand in the line (see leavingLine above). */
  readonly leavingLine: Set<string>;
}

/** A grant a holder gives a waiter of its own process (take-over). */
export interface TakenOverGrant {
  readonly shared: SharedGrant;
  /** The last moment the holder knew the key was ours. */
  readonly expiresAt: number;
}

/** What the lease is to do with a key it is done with. */
export type Succession =
  /** Give the grant to `successor` without a release (it is reserved: the lease wakes it with the grant). */
  | { readonly kind: 'take-over'; readonly successor: Waiter }
  /**
   * Release the key, asking the store for `request`: the script then hands it over to `successor`
   * (reserved, when there is one), passes it, or frees it.
   */
  | {
      readonly kind: 'release';
      readonly successor: Waiter | undefined;
      readonly request: SuccessionRequest | undefined;
    };

/** What the decision needs to know of the lease whose holder is done. */
export interface Outgoing {
  readonly key: string;
  readonly store: LockStore;
  /** The last moment the key is known to be ours. */
  readonly expiresAt: number;
  /** The latest the key may last (Lease.mayLastUntil), a renewal still on its way counted as landing now. */
  readonly mayLastUntil: number;
  /** The watchdog found the key no longer ours (the release is still sent: it is token-checked). */
  readonly lost: boolean;
  /** The waiters that took this grant over and still stand in the line (see leavingLine above). */
  readonly leavingLine: ReadonlySet<string> | undefined;
}

/** Nobody of this process waits, and no waiter that took the grant over stands in line: the common case, without an allocation. */
const RELEASE_ALONE: Succession = { kind: 'release', successor: undefined, request: undefined };

/**
 * Who gets `outgoing.key` next, as far as this process decides it: names (and reserves) a
 * successor among `waiters`, and says whether it takes the grant over or the store is asked to
 * hand the key over to it.
 */
export function decideSuccession(outgoing: Outgoing, waiters: Waiters): Succession {
  const { key } = outgoing;
  const list = waiters.of(key);
  const oldest = list?.find((waiter) => waiter.available);
  const goesAhead = waiters.cohortOf(key) < MAX_COHORT;
  if (oldest && goesAhead && !outgoing.lost && mayTakeOver(outgoing, oldest)) {
    oldest.reserve();
    return { kind: 'take-over', successor: oldest };
  }
  // The release script hands the key to a waiter in the line, or, when nobody stands in it, to
  // one that is not: a waiter that came during this process's turn took no place (Waiters.turnRunsHere).
  const successor = oldest?.inLine ? oldest : (list?.find((waiter) => waiter.available && waiter.inLine) ?? oldest);
  const leavingLine = leavingLineOf(outgoing.leavingLine);
  if (!successor)
    return leavingLine ? { kind: 'release', successor: undefined, request: { leavingLine } } : RELEASE_ALONE;
  successor.reserve();
  return { kind: 'release', successor, request: { successor, goesAhead, leavingLine } };
}

/** The waiters a release must take out of the line first, if any: they took the grant over and still stand in it. */
export function leavingLineOf(leavingLine: ReadonlySet<string> | undefined): readonly string[] | undefined {
  return leavingLine?.size ? [...leavingLine] : undefined;
}

/**
 * Whether `successor` may take over the grant rather than have the store hand the key over: it
 * asks for nothing a new grant must be made for (takesOverGrants), the store can renew a grant for
 * a new holder, the key is known ours for at least half the successor's lease, and it lasts no
 * longer than the successor's own lease would make it — the take-over sends nothing (Lease.takeOver),
 * so a successor whose process dies leaves the key locked no longer than its own grant would — and
 * fewer than MAX_COHORT waiters that took the grant over still stand in line (the release names them).
 */
function mayTakeOver({ store, expiresAt, mayLastUntil, leavingLine }: Outgoing, successor: Waiter): boolean {
  if (!successor.takesOver || store.takeOver === undefined) return false;
  // The cohort bounds a grant's chain of take-overs too; this bounds the names its release sends even
  // should the count end mid-chain (another lease here on the key, one that lost it, released meanwhile).
  if ((leavingLine?.size ?? 0) >= MAX_COHORT) return false;
  const now = Date.now();
  const { leaseMs } = successor;
  return expiresAt - now >= leaseMs / 2 && mayLastUntil - now <= leaseMs + (store.clockDriftMs?.(leaseMs) ?? 0);
}

/**
 * Whether a waiter with these settings may take over a holder's grant: a grant taken over is
 * renewed by the watchdog, and is not a new grant — no new fencing token, no new write for
 * replicas to acknowledge, no lease of the waiter's own length set when it is taken. Waiters that
 * need those get their own grant from the store: `autoUnlock=false` leaves the key to run out its
 * lease after the body, which must then be the waiter's lockTime, not what the holder's had left.
 */
export function takesOverGrants(settings: {
  readonly watchdog: boolean;
  readonly fencing?: boolean;
  readonly replicas: number;
  readonly autoUnlock: boolean;
}): boolean {
  return settings.watchdog && settings.autoUnlock && settings.fencing !== true && !(settings.replicas > 0);
}

/**
 * After a release: the cohort — a take-over, or a hand-over that went ahead of the line, adds to it;
 * anything else (the key went to the first in line, whoever it was, or nowhere) ends it — and this
 * process's turn at the key (Waiters.turnRunsHere), which runs on while the key goes to a waiter
 * here. `released` is undefined for a take-over. Only these successions and the end of a turn end a
 * cohort (Waiters, cohorts), so the count runs across moments when this process has no waiter.
 */
export function noteSuccession(waiters: Waiters, key: string, succession: Succession, released?: Released): void {
  const staysHere = succession.successor !== undefined && (succession.kind === 'take-over' || released === 'handed');
  if (staysHere) {
    // A hand-over that did not go ahead went to the first in line: the line chose this process, and a new cohort starts.
    const wentAhead = succession.kind === 'take-over' || succession.request?.goesAhead === true;
    waiters.setCohort(key, wentAhead ? waiters.cohortOf(key) + 1 : 0);
  }
  // A key that left ends the cohort with the turn.
  waiters.setTurn(key, staysHere);
}
