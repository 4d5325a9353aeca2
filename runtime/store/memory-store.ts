// An in-process store with the Redis store's semantics — leases that expire, token-checked
// renew and release, a line of waiters per key, release notices — for the demo when no Redis
// is at hand and for users' own unit tests. It locks within one process only.
import { checkedTimerDelay, setTimer } from '../base/timer-delay';
import { namesItsProcess } from './process-tag';
import {
  BINDING,
  BINDS_WITHIN_MS,
  CLAIM_MS,
  type Grant,
  type KeyState,
  type LockStore,
  type Notice,
  type PlaceInLine,
  type Released,
  type SuccessionRequest,
} from './lock-store';

interface Holder {
  token: string;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

export interface MemoryStoreOptions {
  /**
   * Where the store reads the time: a test gives its own clock to step time instead of waiting.
   * With it, a lease ends when that clock passes its end (on access, as Redis expires a key);
   * without it, when its timer fires, as always.
   */
  readonly now?: () => number;
}

interface Place {
  token: string;
  place: number;
  lapsesAt: number;
  /** Its waiter's lease, as the Redis line notes it: what a binding pass gives it the key for. */
  leaseMs: number;
}

/** A claim's mark, as the release script sets it beside the key (store/waiting-line.ts, claimMarkOf). */
interface ClaimMark {
  readonly token: string;
  readonly endsAt: number;
}

export class MemoryLockStore implements LockStore {
  private readonly holders = new Map<string, Holder>();
  /** Each key's waiters, first in line first. */
  private readonly lines = new Map<string, Place[]>();
  private readonly listeners = new Map<string, Notice>();
  private readonly claims = new Map<string, ClaimMark>();
  /**
   * Places are numbered as the Redis script numbers them (store/scripts/line-helpers.ts): the clock
   * in µs, or one more than the last place given out when that is later — here across the store, so
   * a waiter that comes back after its place lapsed stands before every newcomer, on a test's clock
   * that stands still too.
   */
  private lastPlace = 0;
  /** Each key's last fencing token, kept for the store's life as Redis keeps its counter. */
  private readonly fences = new Map<string, number>();
  private readonly now: () => number;
  /**
   * Leases end by the clock, not only by their timers: only on a clock of the test's. On Date.now a
   * lease ends when its timer fires, as it always has — under a busy event loop a watchdog renewal
   * due before that timer still finds the key, as it did before the clock could be given.
   */
  private readonly endsByClock: boolean;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.endsByClock = options.now !== undefined;
  }

  async tryAcquire(key: string, token: string, leaseMs: number, fenced?: boolean): Promise<Grant> {
    if (this.liveHolder(key)) return false;
    this.hold(key, token, leaseMs);
    return fenced ? this.nextFence(key) : true;
  }

  async tryAcquireInTurn(key: string, waiter: PlaceInLine, staleClaim?: string): Promise<boolean> {
    checkedTimerDelay(waiter.leaseMs, 'a lease');
    const holder = this.liveHolder(key);
    if (holder?.token === waiter.token) {
      this.claims.delete(key);
      return this.grantInTurn(key, waiter);
    }
    const line = this.lines.get(key) ?? [];
    this.lines.set(key, line);
    let entry = line.find((place) => place.token === waiter.token);
    if (!entry) {
      entry = {
        token: waiter.token,
        place: waiter.place === undefined ? this.newPlace() : Number(waiter.place),
        lapsesAt: 0,
        leaseMs: waiter.leaseMs,
      };
      const behind = line.findIndex((place) => place.place > entry!.place);
      line.splice(behind < 0 ? line.length : behind, 0, entry);
      waiter.place = String(entry.place);
    }
    entry.lapsesAt = this.now() + waiter.placeLastsMs;
    // A claim left unconfirmed, as the caller's process saw it, counts as free (acquire-in-turn.ts).
    const takesClaim = holder !== undefined && holder.token === staleClaim && this.claimOf(key) === holder.token;
    if ((holder && !takesClaim) || this.firstInLine(key)?.token !== waiter.token) return false;
    if (takesClaim) this.claims.delete(key);
    return this.grantInTurn(key, waiter);
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    if (this.liveHolder(key)?.token !== token) return false;
    this.hold(key, token, leaseMs);
    return true;
  }

  async takeOver(key: string, token: string, leaseMs: number, waiterToken: string): Promise<boolean> {
    checkedTimerDelay(leaseMs, 'a lease');
    this.leaveLine(key, waiterToken);
    return this.renew(key, token, leaseMs);
  }

  /**
   * As many as asked: what `replicas` guards against — a failover that loses a grant — cannot
   * happen to a store in the process's own memory, and code unit-tested on this store with
   * `replicas` set must run as it would on Redis with its replicas up.
   */
  async waitForReplicas(replicas: number): Promise<number> {
    return replicas;
  }

  async leave(key: string, token: string): Promise<Released> {
    // As the release script: the first in line gives up, and the next watches a claim in its stead.
    const watched = this.firstInLine(key)?.token === token ? this.claimOf(key) : undefined;
    this.leaveLine(key, token);
    if (watched !== undefined && this.firstInLine(key)) this.listeners.get(key)?.(key, watched);
    return this.releaseOrLeave(key, token, undefined, true);
  }

  async release(key: string, token: string, succession?: SuccessionRequest): Promise<Released> {
    return this.releaseOrLeave(key, token, succession, false);
  }

  /** As the release script: `leaving`, a waiter giving up, takes a claim's mark away with it. */
  private releaseOrLeave(
    key: string,
    token: string,
    succession: SuccessionRequest | undefined,
    leaving: boolean,
  ): Released {
    const successor = succession?.successor;
    const successorGoesAhead = succession?.goesAhead === true;
    const leavingLine = succession?.leavingLine ?? [];
    if (successor) checkedTimerDelay(successor.leaseMs, 'a lease');
    // Before the token check, as the release script does: they took the grant over and hold the
    // key under its token, whatever this release finds.
    for (const taker of leavingLine) this.leaveLine(key, taker);
    if (this.liveHolder(key)?.token !== token) return 'not-ours';
    if (leaving) this.claims.delete(key);
    // Lapsed places first, as the release script drops them: a successor whose place lapsed no
    // longer stands in line and cannot go ahead of it.
    const head = this.firstInLine(key);
    const inLine = (place: Place) => place.token === successor?.token;
    const first = (successorGoesAhead && this.lines.get(key)?.find(inLine)) || head;
    // Nobody in line: the successor, in line or not, is the only one waiting.
    if (!first || first.token === successor?.token) {
      if (!successor) {
        // As the release script: announced only when asked (lock-store.ts, SuccessionRequest).
        this.free(key, succession?.announceFree === true);
        // One process: its own listener is the only one there is.
        if (succession?.announceFree) succession.onAnnounced?.(this.listeners.has(key) ? 1 : 0);
        return 'freed';
      }
      this.leaveLine(key, successor.token);
      this.hold(key, successor.token, successor.leaseMs);
      if (successor.fenced) successor.fence = this.nextFence(key);
      return 'handed';
    }
    this.leaveLine(key, first.token);
    // As the release script: binding — the waiter's own lease, no mark — for a waiter that names its
    // process, came a moment ago, and is heard (here: the key has a listener).
    const listener = this.listeners.get(key);
    if (listener && namesItsProcess(first.token) && this.now() * 1000 - first.place < BINDS_WITHIN_MS * 1000) {
      this.hold(key, first.token, first.leaseMs);
      listener(key, BINDING + first.token);
      return 'passed';
    }
    this.hold(key, first.token, CLAIM_MS);
    this.claims.set(key, { token: first.token, endsAt: this.now() + CLAIM_MS });
    listener?.(key, first.token);
    return 'passed';
  }

  async listen(key: string, notice: Notice): Promise<void> {
    this.listeners.set(key, notice);
  }

  unlisten(key: string): void {
    this.listeners.delete(key);
  }

  async inspect(key: string): Promise<KeyState> {
    const ttl = this.pttl(key);
    return {
      held: ttl !== -2,
      ttlMs: ttl >= 0 ? ttl : undefined,
      waiters: this.waiting(key).length,
      fence: this.fences.get(key),
    };
  }

  async forceUnlock(key: string): Promise<boolean> {
    const held = this.liveHolder(key) !== undefined;
    this.claims.delete(key);
    this.free(key);
    return held;
  }

  /** The token holding `key`, or undefined: for tests that check what is held. */
  holder(key: string): string | undefined {
    return this.liveHolder(key)?.token;
  }

  /** The token of `key`'s claim mark while it lasts (whoever holds the key); tests read it too. */
  claimOf(key: string): string | undefined {
    const mark = this.claims.get(key);
    if (mark && mark.endsAt > this.now()) return mark.token;
    this.claims.delete(key);
    return undefined;
  }

  /** The tokens of the waiters whose places in `key`'s line have not lapsed, first in line first: for tests. */
  waiting(key: string): string[] {
    const now = this.now();
    return (this.lines.get(key) ?? []).filter((place) => place.lapsesAt > now).map((place) => place.token);
  }

  /** Remaining lease of `key` in ms, or -2 when absent (like Redis PTTL). */
  pttl(key: string): number {
    const holder = this.liveHolder(key);
    return holder ? Math.max(0, holder.expiresAt - this.now()) : -2;
  }

  async close(): Promise<void> {
    for (const key of [...this.holders.keys()]) this.free(key);
    this.lines.clear();
    this.claims.clear();
  }

  private grantInTurn(key: string, waiter: PlaceInLine): true {
    this.hold(key, waiter.token, waiter.leaseMs);
    this.leaveLine(key, waiter.token);
    if (waiter.fenced) waiter.fence = this.nextFence(key);
    return true;
  }

  private newPlace(): number {
    this.lastPlace = Math.max(this.lastPlace + 1, this.now() * 1000);
    return this.lastPlace;
  }

  /** As the Redis store counts (store/scripts/try-acquire-fenced.ts): one more than the last, never below the clock in µs. */
  private nextFence(key: string): number {
    const fence = Math.max((this.fences.get(key) ?? 0) + 1, this.now() * 1000);
    this.fences.set(key, fence);
    return fence;
  }

  private hold(key: string, token: string, leaseMs: number): void {
    // Refused before anything changes: a lease no timer can keep would end at once (Node fires a
    // longer timer immediately) and let a second caller in beside the first. Every verb that
    // holds is async, so the refusal reaches its caller as a rejection.
    checkedTimerDelay(leaseMs, 'a lease');
    clearTimeout(this.holders.get(key)?.timer);
    // Unref'd like Redis's own expiry: a lease alone never keeps the process running.
    // Unlike Redis (which does not publish expiries), expiry here notifies waiters too.
    const expiresAt = this.now() + leaseMs;
    this.holders.set(key, { token, expiresAt, timer: this.lapseTimer(key, token, leaseMs) });
  }

  /** Frees the key when its lease has run out. On a test's clock, a timer that fires early by it waits again for the rest. */
  private lapseTimer(key: string, token: string, ms: number): NodeJS.Timeout {
    const timer = setTimer(() => {
      const holder = this.holders.get(key);
      if (holder?.token !== token) return;
      const leftMs = holder.expiresAt - this.now();
      if (leftMs <= 0 || !this.endsByClock) this.free(key);
      else holder.timer = this.lapseTimer(key, token, leftMs);
    }, ms);
    timer.unref();
    return timer;
  }

  /** The key's holder while its lease lasts: on a test's clock, a lease that ran out is freed here, as Redis expires a key on access. */
  private liveHolder(key: string): Holder | undefined {
    const holder = this.holders.get(key);
    if (holder && this.endsByClock && holder.expiresAt <= this.now()) {
      this.free(key);
      return undefined;
    }
    return holder;
  }

  private free(key: string, announce = true): void {
    clearTimeout(this.holders.get(key)?.timer);
    this.holders.delete(key);
    if (announce) this.listeners.get(key)?.(key, undefined);
  }

  /** The first waiter whose place has not lapsed; lapsed ones are dropped from the whole line, as the scripts drop them. */
  private firstInLine(key: string): Place | undefined {
    const line = this.lines.get(key);
    if (!line) return undefined;
    const now = this.now();
    const live = line.filter((place) => place.lapsesAt > now);
    if (live.length === 0) this.lines.delete(key);
    else line.splice(0, line.length, ...live);
    return live[0];
  }

  private leaveLine(key: string, token: string): void {
    const line = this.lines.get(key);
    if (!line) return;
    const index = line.findIndex((place) => place.token === token);
    if (index >= 0) line.splice(index, 1);
    if (line.length === 0) this.lines.delete(key);
  }
}
