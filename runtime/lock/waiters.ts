// This process's waiters: callers that sleep until the key they want is freed or passed to them,
// or their next scheduled attempt is due.
//
// Who gets a key next is decided by succession.ts and, across processes, by the key's line of
// waiters in the store (first come, first served). What this file decides is how a notice reaches
// the right sleeper:
// - passed to a token: only the waiter holding that token wakes, to confirm the key with one attempt —
//   or, when the pass binds (store/lock-store.ts, BINDS_WITHIN_MS), with the key its own (passed);
// - freed (a Redlock release, an operator's forced unlock; a release on one Redis that finds the line
//   empty announces nothing: store/scripts/release.ts): the oldest sleeper of this process wakes and
//   tries; the others sleep on, so they do not all race for one key;
// - passed to a waiter of another process (told to the process of the next in line, the one waiter
//   that may take the claim: store/release-channel.ts): the oldest sleeper here watches the claim.
//   If no later notice for the key comes within CLAIM_FIRM_MS, that process has not used the key —
//   stalled, its connection cut or paused — and the sleeper tries with the claim's token
//   (`staleClaim`): the store gives it the key if the claim is still unconfirmed and it is first in
//   line (store/scripts/acquire-in-turn.ts). A poller whose connection stalls loses the race to one
//   whose connection does not; this gives the line the same resilience without its polling.
//
// Why an epoch and not a plain event: a notice can land between a waiter's attempt and the moment
// it starts to sleep. Each waiter counts the notices meant for it; it notes the count before an
// attempt and, if it moved by the time it would sleep, tries again at once. No notice is missed.
//
// Which of these waiters is named successor when a holder here is done with a key, and whether it
// takes the grant over or has it handed over, is succession.ts's decision; a waiter so chosen is
// reserved, then woken with the key already its own (succeed) or let go (unreserve).
import { BINDS_WITHIN_MS, passOf, type LockStore, type PlaceInLine } from '../store/lock-store';
import { setTimer } from '../base/timer-delay';
import type { TakenOverGrant } from './succession';

/**
 * How long a claim passed to another process's waiter may go without a sign of use before a waiter
 * here tries to take it over. A live process confirms a claim within a round trip of the notice
 * (a millisecond or so; tens of milliseconds on a loaded machine), and its release of the key
 * announces the next succession; a stall — a paused process, a connection stuck in a network fault,
 * a garbage collection — lasts from about a hundred milliseconds to seconds. Shorter would take
 * claims from processes that were only slow (safe, but their waiters lose their turn); longer
 * keeps the key idle through more of each stall. The cost of a watch that finds the claim confirmed
 * is one attempt, made only where the body outlasts this and no other notice came.
 */
export const CLAIM_FIRM_MS = 50;

/**
 * How a waiter succeeded a holder of this process without an attempt of its own (see succession.ts),
 * or a holder elsewhere by a binding pass (store/lock-store.ts, BINDS_WITHIN_MS).
 */
export type Succeeded =
  /**
   * Hand-over: the release script gave it the key under its own token for its lease, no earlier than
   * `sentAt` — when the release was sent, or, for a binding pass, the waiter's first attempt in turn.
   */
  | { readonly sentAt: number; readonly grant?: undefined }
  /** Take-over: the holder gave it its grant; the key holds the grant's token, known to be ours until `expiresAt`. */
  | { readonly sentAt: number; readonly grant: TakenOverGrant };

/** What a waiter asks of the lease it waits for (see acquire.ts). */
export interface WaiterSettings {
  readonly leaseMs: number;
  readonly placeLastsMs: number;
  readonly fenced: boolean;
  /** It may take over a holder's grant (succession.ts, takesOverGrants). */
  readonly takesOver: boolean;
  /**
   * Its body may start on a binding pass's notice (store/lock-store.ts, BINDS_WITHIN_MS): no fencing
   * token or replica is asked of the grant (its own attempt gets them), nor a minHold counted from its start.
   */
  readonly startsOnPass: boolean;
}

export class Waiter implements PlaceInLine {
  /** Notices meant for this waiter since it began to wait, and looks (lookAgain). */
  epoch = 0;
  /** Whether a notice, not only a look, came since the caller last asked (takeNoticed). */
  private noticed = false;
  place: string | undefined;
  fence: number | undefined;
  /**
   * Whether it has taken its place in the line (its first attempt in turn was sent). A caller that
   * came while its process's turn ran (Waiters.turnRunsHere) takes none until the turn ends.
   */
  inLine = false;
  /** When its first attempt in turn was sent: any pass to it came after (see passed). */
  placedAt: number | undefined;
  /** A claim this waiter may take over at its next attempt (Waiters, watchClaim): taken once. */
  private staleClaim: string | undefined;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reserved = false;
  private succeeded: Succeeded | undefined;

  constructor(
    readonly key: string,
    readonly token: string,
    private readonly settings: WaiterSettings,
    private readonly detach: (waiter: Waiter) => void,
  ) {}

  get leaseMs(): number {
    return this.settings.leaseMs;
  }

  get placeLastsMs(): number {
    return this.settings.placeLastsMs;
  }

  get fenced(): boolean {
    return this.settings.fenced;
  }

  get takesOver(): boolean {
    return this.settings.takesOver;
  }

  /** Asleep and free to be woken or reserved. */
  get available(): boolean {
    return this.wake !== undefined && !this.reserved;
  }

  /** Sleeps until a notice after `seenEpoch`, a succession, or `timeoutMs`; returns at once if a notice came already. */
  sleep(seenEpoch: number, timeoutMs: number): Promise<void> {
    if (this.epoch !== seenEpoch || this.succeeded !== undefined || timeoutMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      // Ref'd on purpose: someone is awaiting this lock, so the process must stay up for it.
      // A clamped wait wakes early: the caller then makes a scheduled attempt and waits again.
      this.timer = setTimer(() => this.reserved || this.awaken(), timeoutMs);
    });
  }

  /** How this waiter succeeded the holder, if it did: taken once. */
  takeSucceeded(): Succeeded | undefined {
    const succeeded = this.succeeded;
    this.succeeded = undefined;
    return succeeded;
  }

  /** The claim its next attempt may take over, if a watch found one: taken once. */
  takeStaleClaim(): string | undefined {
    const claim = this.staleClaim;
    this.staleClaim = undefined;
    return claim;
  }

  /** A claim passed to another process went unconfirmed: look again, and take it over if the store lets us. */
  claimWentStale(claim: string): void {
    this.staleClaim = claim;
    this.notify();
  }

  /**
   * The key was passed to this waiter. A binding pass heard within BINDS_WITHIN_MS of its first attempt
   * in turn made the key its own for its lease, from no earlier than that attempt's send — the place it
   * gave is what the pass went to: it wakes with the key, as from a hand-over. Any other pass it
   * confirms with an attempt, as a notice makes it do — so too one heard later (the lease it would
   * count has less left than a new grant's, and the attempt renews it), or while a release here may
   * hand it the key (reserved): that release wakes it either way.
   */
  passed(binding: boolean): void {
    const placedAt = this.placedAt;
    if (
      binding &&
      this.settings.startsOnPass &&
      !this.reserved &&
      this.succeeded === undefined &&
      placedAt !== undefined &&
      Date.now() - placedAt < BINDS_WITHIN_MS
    )
      this.succeed({ sentAt: placedAt });
    else this.notify();
  }

  /** A notice for this waiter came. */
  notify(): void {
    this.noticed = true;
    this.epoch++;
    this.awaken();
  }

  /**
   * A notice for this waiter may have been missed (its subscriber or its connection is back): it
   * looks again, as after a notice — unless a release here may be handing the key to it (reserved),
   * which wakes it either way. A look is not a notice: the attempt it makes counts only if it
   * takes the key (acquire.ts).
   */
  lookAgain(): void {
    if (!this.reserved) this.look();
  }

  /** Wakes the waiter to look again, reserved or not; not a notice (see lookAgain). */
  look(): void {
    this.epoch++;
    this.awaken();
  }

  /** Whether a notice, not only a look, came since the last call. */
  takeNoticed(): boolean {
    const noticed = this.noticed;
    this.noticed = false;
    return noticed;
  }

  /** Holds the waiter asleep while a release that may hand the key over to it is in flight. */
  reserve(): void {
    this.reserved = true;
  }

  /** The waiter succeeded the holder (hand-over or take-over): wake with the key already ours. */
  succeed(succeeded: Succeeded): void {
    this.reserved = false;
    this.succeeded = succeeded;
    this.awaken();
  }

  /**
   * The release did not hand the key over to it. The waiter wakes either way: with a notice when the key
   * came free, else only to look at its schedule — its timer may have come due while it was
   * reserved, and a timer that fired then did not wake it.
   */
  unreserve(keyFreed: boolean): void {
    this.reserved = false;
    if (keyFreed) this.notify();
    else this.awaken();
  }

  close(): void {
    this.awaken();
    this.detach(this);
  }

  private awaken(): void {
    const wake = this.wake;
    if (!wake) return;
    this.wake = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    wake();
  }
}

/** The waiters of one store in this process, by key, oldest first; they hear the store's notices. */
export class Waiters {
  private readonly byKey = new Map<string, Waiter[]>();
  /**
   * Successions in a row, by key, that went ahead of the line (succession.ts, noteSuccession). A
   * count ends only when the key leaves this process, or may have: a succession that did not go
   * ahead (noteSuccession), or the end of the turn (setTurn). Not when this process briefly has no
   * waiter for the key (remove): two callers that take turns have none at every succession, one
   * holding and the other between its calls; a count that started again then never reached
   * MAX_COHORT, the key never went to the line, and other processes' waiters starved at its head.
   * It cannot grow past MAX_COHORT either: a succession at the cap does not go ahead, and ends it.
   */
  private readonly cohorts = new Map<string, number>();
  /** The keys this process's turn runs at (turnRunsHere). */
  private readonly turns = new Set<string>();
  /** By key, the watch on a claim passed to another process's waiter. */
  private readonly claimWatches = new Map<string, NodeJS.Timeout>();

  constructor(private readonly store: LockStore) {}

  /**
   * A new waiter for `key`, once the store delivers the key's notices (a waiter that joined the
   * line before that could miss the notice passing it the key). Without notices — the store could
   * not listen, or not within `listenWaitMs` — the waiter still wakes for its scheduled attempts:
   * a subscription that hangs (Redis down, and a client with no command timeout) must not hold a
   * caller past its wait bound.
   */
  async add(key: string, token: string, settings: WaiterSettings, listenWaitMs: number): Promise<Waiter> {
    const waiter = new Waiter(key, token, settings, (done) => this.remove(done));
    const list = this.byKey.get(key);
    if (list) list.push(waiter);
    else this.byKey.set(key, [waiter]);
    const listening = this.store
      .listen(key, (noticed, passedTo, missed) => this.notice(noticed, passedTo, missed))
      .catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => (timer = setTimer(resolve, listenWaitMs)));
    await Promise.race([listening, givenUp]);
    clearTimeout(timer);
    return waiter;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The waiters for `key`, oldest first. */
  of(key: string): readonly Waiter[] | undefined {
    return this.byKey.get(key);
  }

  /** How many successions in a row went ahead of the line for `key` (see succession.ts). */
  cohortOf(key: string): number {
    return this.cohorts.get(key) ?? 0;
  }

  setCohort(key: string, cohort: number): void {
    if (cohort > 0) this.cohorts.set(key, cohort);
    else this.cohorts.delete(key);
  }

  /**
   * Whether this process's turn at `key` runs: the last succession gave the key to a waiter here
   * (a take-over or a hand-over), and a lease here holds it. While it runs, each holder gives the
   * key to a waiter here, and a caller that comes and can take a grant over joins the waiters
   * without taking a place in the line (acquire.ts): a take-over serves it, or the turn ends and
   * wakes it to take one.
   */
  turnRunsHere(key: string): boolean {
    return this.turns.has(key);
  }

  /**
   * Whether the key stays here after a succession (succession.ts, noteSuccession). The turn ends
   * when it went to the line or nowhere, or may have (a release not answered, a lease kept to
   * lapse): the waiters that took no place stood on the turn, and wake to take one. The cohort
   * ends with it: the key has left this process (see cohorts).
   */
  setTurn(key: string, runs: boolean): void {
    if (runs) {
      this.turns.add(key);
      return;
    }
    this.cohorts.delete(key);
    if (!this.turns.delete(key)) return;
    for (const waiter of this.byKey.get(key) ?? []) if (!waiter.inLine) waiter.look();
  }

  private notice(key: string, passedTo: string | undefined, missed?: boolean): void {
    const list = this.byKey.get(key);
    if (!list) return;
    // Any notice is a sign of use: a claim watched before it was confirmed, or never was.
    this.unwatchClaim(key);
    // Missed notices: a freed key, or one passed to any of them, would otherwise wait for their
    // scheduled attempts (waitTime, 5 s by default) — and a claim nobody takes up, for CLAIM_MS.
    if (missed) for (const waiter of [...list]) waiter.lookAgain();
    else if (passedTo === undefined) list.find((waiter) => waiter.available)?.notify();
    else {
      const { token, binding } = passOf(passedTo);
      const claimant = list.find((waiter) => waiter.token === token);
      if (claimant) claimant.passed(binding);
      // A binding pass is no claim to watch: it is told to its waiter's process alone.
      else if (!binding) this.watchClaim(key, token);
    }
  }

  /** A claim passed to another process: if no notice follows within CLAIM_FIRM_MS, the oldest sleeper here looks again with it. */
  private watchClaim(key: string, claim: string): void {
    const timer = setTimer(() => {
      this.claimWatches.delete(key);
      this.byKey
        .get(key)
        ?.find((waiter) => waiter.available)
        ?.claimWentStale(claim);
    }, CLAIM_FIRM_MS);
    // The sleepers' own timers keep the process up while someone waits.
    timer.unref();
    this.claimWatches.set(key, timer);
  }

  private unwatchClaim(key: string): void {
    clearTimeout(this.claimWatches.get(key));
    this.claimWatches.delete(key);
  }

  private remove(waiter: Waiter): void {
    const list = this.byKey.get(waiter.key);
    if (!list) return;
    const index = list.indexOf(waiter);
    if (index >= 0) list.splice(index, 1);
    if (list.length > 0) return;
    this.byKey.delete(waiter.key);
    // The cohort stays: a lease here may still hold the key, and its release counts on (see cohorts).
    this.turns.delete(waiter.key);
    this.unwatchClaim(waiter.key);
    this.store.unlisten(waiter.key);
  }
}

const waitersByStore = new WeakMap<LockStore, Waiters>();

/** This process's waiters on `store`. */
export function waitersOf(store: LockStore): Waiters {
  let waiters = waitersByStore.get(store);
  if (!waiters) waitersByStore.set(store, (waiters = new Waiters(store)));
  return waiters;
}
