// This process's waiters: callers that sleep until the key they want is freed or passed to them,
// or their next scheduled attempt is due.
//
// Who goes next is decided in the store, by the key's line of waiters (first come, first served,
// across every process). What this file decides is how a notice reaches the right sleeper:
// - passed to a token: only the waiter holding that token wakes, to confirm the key with one attempt;
// - freed (nobody was in line when it was released): the oldest sleeper of this process wakes and
//   tries; the others sleep on, so they do not all race for one key.
//
// Why an epoch and not a plain event: a notice can land between a waiter's attempt and the moment
// it starts to sleep. Each waiter counts the notices meant for it; it notes the count before an
// attempt and, if it moved by the time it would sleep, tries again at once. No notice is missed.
//
// Hand-over: when a holder here releases a key, it names the oldest sleeper here as its successor.
// If the store finds that waiter first in line, the key goes to it with its full lease, and the
// holder wakes it with the key already its own — no notice and no round trip. The successor is
// reserved first, so its own timer cannot make it give up while the release is in flight.
// Take-over: when the successor may go ahead of the line (below), the holder does not release at
// all — it gives the successor its grant, which the successor renews in the background while its
// body runs (see lock/lease.ts, Lease.release, for when that is allowed and why it is safe).
//
// Cohorts: strict arrival order would send nearly every release of a key that several processes
// contend for across to another process, each pass costing a notice and a confirming round trip
// (measured: 40% of the throughput of 4 processes × 4 callers on one key). So the successor may go
// ahead of the line — the cohort-locking idea — up to MAX_COHORT hand-overs in a row; then the key
// goes to the first in line, whichever process it is in. Who goes next across processes is still
// the line's decision, and a waiter is overtaken by at most MAX_COHORT sections per turn of
// another process: waits stay bounded, and well within a caller's wait bound.
import type { LockStore, PlaceInLine } from '../store/lock-store';
import { setTimer } from '../base/timer-delay';

/** A grant a holder gives a waiter of its own process (see lock/lease.ts, Lease.release). */
export interface TakenOverGrant {
  readonly token: string;
  /** The last moment the holder knew the key was ours. */
  readonly expiresAt: number;
  /** The waiters whose take-over of the grant is not answered yet (see Lease.takeOver). */
  readonly leavingLine?: Set<string>;
}

/** How a waiter got the key without an attempt of its own. */
export type Handover =
  /** The release script handed it the key under its own token; the release was sent at `sentAt`, so its lease began no earlier. */
  | { readonly sentAt: number; readonly grant?: undefined }
  /** The holder gave it its grant: the key holds the grant's token, known to be ours until `expiresAt`. */
  | { readonly sentAt: number; readonly grant: TakenOverGrant };

/** What a waiter asks of the lease it waits for (see acquire.ts). */
export interface WaiterTerms {
  readonly leaseMs: number;
  readonly placeLastsMs: number;
  readonly fenced: boolean;
  /** It may take over a holder's grant: its watchdog will renew the grant, and it needs nothing a grant must be made for. */
  readonly takesOver: boolean;
}

export class Waiter implements PlaceInLine {
  /** Notices meant for this waiter since it began to wait. */
  epoch = 0;
  place: string | undefined;
  fence: number | undefined;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reserved = false;
  private handover: Handover | undefined;

  constructor(
    readonly key: string,
    readonly token: string,
    private readonly terms: WaiterTerms,
    private readonly detach: (waiter: Waiter) => void,
  ) {}

  get leaseMs(): number {
    return this.terms.leaseMs;
  }

  get placeLastsMs(): number {
    return this.terms.placeLastsMs;
  }

  get fenced(): boolean {
    return this.terms.fenced;
  }

  get takesOver(): boolean {
    return this.terms.takesOver;
  }

  /** Asleep and free to be woken or reserved. */
  get available(): boolean {
    return this.wake !== undefined && !this.reserved;
  }

  /** Sleeps until a notice after `seenEpoch`, a hand-over, or `timeoutMs`; returns at once if a notice came already. */
  sleep(seenEpoch: number, timeoutMs: number): Promise<void> {
    if (this.epoch !== seenEpoch || this.handover !== undefined || timeoutMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      // Ref'd on purpose: someone is awaiting this lock, so the process must stay up for it.
      // A clamped wait wakes early: the caller then makes a scheduled attempt and waits again.
      this.timer = setTimer(() => this.reserved || this.awaken(), timeoutMs);
    });
  }

  /** How the key was handed to this waiter, if it was: taken once. */
  takeHandover(): Handover | undefined {
    const handover = this.handover;
    this.handover = undefined;
    return handover;
  }

  /** A notice for this waiter came. */
  notify(): void {
    this.epoch++;
    this.awaken();
  }

  /** Holds the waiter asleep while a release that may hand it the key is in flight. */
  reserve(): void {
    this.reserved = true;
  }

  /** The key was handed over (by the release script, or as the holder's grant): wake with it already ours. */
  handed(handover: Handover): void {
    this.reserved = false;
    this.handover = handover;
    this.awaken();
  }

  /**
   * The release did not hand the key over. The waiter wakes either way: with a notice when the key
   * came free, else only to look at its schedule — its timer may have come due while it was
   * reserved, and a timer that fired then did not wake it.
   */
  unreserve(keyFreed: boolean): void {
    this.reserved = false;
    if (keyFreed) this.epoch++;
    this.awaken();
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

/** Hand-overs in a row within one process before a key must go to the first in line. */
export const MAX_COHORT = 8;

/** The waiters of one store in this process, by key, oldest first; they hear the store's notices. */
export class Waiters {
  private readonly byKey = new Map<string, Waiter[]>();
  /** Hand-overs in a row, by key, that went ahead of the line. */
  private readonly cohorts = new Map<string, number>();

  constructor(private readonly store: LockStore) {}

  /**
   * A new waiter for `key`, once the store delivers the key's notices (a waiter that joined the
   * line before that could miss the notice passing it the key). Without notices — the store could
   * not listen, or not within `listenWaitMs` — the waiter still wakes for its scheduled attempts:
   * a subscription that hangs (Redis down, and a client with no command timeout) must not hold a
   * caller past its wait bound.
   */
  async add(key: string, token: string, terms: WaiterTerms, listenWaitMs: number): Promise<Waiter> {
    const waiter = new Waiter(key, token, terms, (done) => this.remove(done));
    const list = this.byKey.get(key);
    if (list) list.push(waiter);
    else this.byKey.set(key, [waiter]);
    const listening = this.store.listen(key, (noticed, passedTo) => this.notice(noticed, passedTo)).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => (timer = setTimer(resolve, listenWaitMs)));
    await Promise.race([listening, givenUp]);
    clearTimeout(timer);
    return waiter;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /**
   * The oldest sleeper for `key`, reserved for a release that may hand it the key, and whether it
   * may go ahead of the line (the cohort is not full yet).
   */
  reserveSuccessor(key: string): { successor: Waiter; goesAhead: boolean } | undefined {
    const successor = this.byKey.get(key)?.find((waiter) => waiter.available);
    if (!successor) return undefined;
    successor.reserve();
    return { successor, goesAhead: (this.cohorts.get(key) ?? 0) < MAX_COHORT };
  }

  /**
   * The key left a holder that named a successor: a hand-over (or take-over) that went ahead of the
   * line adds to the cohort; anything else — the key went to the first in line, whoever it was —
   * ends it.
   */
  released(key: string, wentAhead: boolean): void {
    if (wentAhead) this.cohorts.set(key, (this.cohorts.get(key) ?? 0) + 1);
    else this.cohorts.delete(key);
  }

  private notice(key: string, passedTo: string | undefined): void {
    const list = this.byKey.get(key);
    if (!list) return;
    if (passedTo === undefined) list.find((waiter) => waiter.available)?.notify();
    else list.find((waiter) => waiter.token === passedTo)?.notify();
  }

  private remove(waiter: Waiter): void {
    const list = this.byKey.get(waiter.key);
    if (!list) return;
    const index = list.indexOf(waiter);
    if (index >= 0) list.splice(index, 1);
    if (list.length > 0) return;
    this.byKey.delete(waiter.key);
    this.cohorts.delete(waiter.key);
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
