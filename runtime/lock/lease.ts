// A held lock: its token, the watchdog that renews it, and its release.
//
// Release never throws. It runs in the woven method's `finally`, and an error there would
// replace the body's own result or error — the one thing the caller must get unchanged.
// A failed or refused release is reported to the logger instead, and the lease expires anyway.
import { LockLostError } from '../base/errors';
import type { LockLogger } from './events';
import { holdChannel, type HoldTrace, type LockLabel } from './observe';
import { runBody, type HeldLock } from './held-locks';
import { holdProcess } from '../base/process-hold';
import { ReentryGate } from './reentry-gate';
import type { LockStore, Released } from '../store/lock-store';
import { decideSuccession, leavingLineOf, noteSuccession, type SharedGrant, type TakenOverGrant } from './succession';
import { waitersOf } from './waiters';
import { setTimer } from '../base/timer-delay';
import { sendAgain } from './clean-up';
import { KINDS, tooLong } from '../base/option-kinds';

/** A lease's use of the store it was taken through (see api/store-slot.ts): ended once the lease is done with it. */
export interface StoreUse {
  end(): void;
}

export interface LeaseSettings {
  readonly lockTime: number;
  readonly watchdog: boolean;
  readonly autoUnlock: boolean;
  readonly reentrant: boolean;
  /** Held on a Redlock majority rather than on the one Redis: another lock than the same key there. */
  readonly redlock?: boolean;
  /** The least time the key stays after acquiredAt (0 or absent: off); see keepForMinHold. */
  readonly minHold?: number;
  /** The replicas that acknowledged the grant before it was handed out (acquire.ts); 0 or absent: none asked. */
  readonly replicas?: number;
}

/** What a lease is made of: its grant, and where and how it is held. */
export interface LeaseParts {
  readonly key: string;
  readonly token: string;
  /** When the acquiring command was sent: Redis started the lease no earlier, so we count from here. */
  readonly acquiredAt: number;
  /** The fencing token of the grant (the `fencing` option); undefined without fencing. */
  readonly fence?: number;
  readonly store: LockStore;
  readonly settings: LeaseSettings;
  readonly logger: LockLogger | undefined;
  /** Ended once the lease is done with the store. */
  readonly use?: StoreUse;
  /** Which lock this is, for the traces of its locked body (observe.ts). */
  readonly label?: LockLabel;
  /** The grant this lease takes over from a holder of this process (Lease.takeOver); absent for a grant of its own. */
  readonly grant?: TakenOverGrant;
}

/** What a take-over's lease is made of (Lease.takeOver): the grant it takes over, and the waiter that takes it. */
export interface TakeOverParts extends Omit<LeaseParts, 'token' | 'acquiredAt' | 'fence'> {
  readonly grant: TakenOverGrant;
  readonly waiterToken: string;
  /** Whether the waiter took its place in the line: then the grant's release or first renewal takes it out. */
  readonly inLine: boolean;
}

/** Why a lease the watchdog could not renew is lost. */
// No renewal was confirmed before the lease's end: Redis did not answer, or its connection was closed
// (close() while a body still held the key) — the lease cannot tell which.
const LAPSED = 'the lease ended while Redis could not be reached, or its connection was closed (close())';

/** The least wait before the watchdog renews again after a failed renewal (see retryDelay). */
const RETRY_MS = 250;

export class Lease implements HeldLock, AsyncDisposable {
  readonly key: string;
  readonly token: string;
  /** The fencing token of the grant (the `fencing` option); undefined without fencing. */
  readonly fence: number | undefined;
  // JavaScript's own private fields, not TypeScript's: the store leads to the client and its
  // options, password and all, which util.inspect or a logger's circular-safe JSON of a lease
  // would otherwise print (a lease is in the user's hands and in the acquire channel's message).
  readonly #store: LockStore;
  private readonly settings: LeaseSettings;
  private readonly logger: LockLogger | undefined;
  /** When the acquiring command was sent: Redis started the lease no earlier, so we count from here. */
  private readonly acquiredAt: number;
  readonly #use: StoreUse | undefined;
  private readonly label: LockLabel | undefined;
  private state: 'held' | 'released' | 'lost' = 'held';
  /** When the key expires unless renewed: the last moment we know it is ours. */
  private expiresAt: number;
  /**
   * The latest the key may last: a release not answered is sent again until then. Past `expiresAt`
   * when a take-over or renewal was not answered (it may have landed, or not: the key lasts the
   * former holder's longer lease, or the renewal's), or was answered late. Kept here until the grant
   * is first taken over, then in `shared`: read it as mayLastUntil, raise it with mayLastAtLeast.
   */
  private ownMayLastUntil: number;
  /**
   * How long the key lasts from each renewal: `lockTime`, until extend() sets another. Each renewal
   * is counted with the length it was sent with (one sent before an extend() lands before it).
   */
  private leaseMs: number;
  /** The watchdog renews the lease: the `watchdog` setting, until stopRenewal(). */
  private renewing: boolean;
  /** Nested calls asking for the watchdog that hold a turn in a lease taken without it (keepRenewed). */
  private readonly renewedFor = new Set<object>();
  private renewTimer: NodeJS.Timeout | undefined;
  /**
   * Set for `expiresAt` while the watchdog waits on a renewal that is out or has failed: the lease
   * is lost then, unless a renewal confirmed a later end first (see armLapse). A body that ends
   * before its first renewal — nearly every body — never sets it.
   */
  private lapseTimer: NodeJS.Timeout | undefined;
  private abort: AbortController | undefined;
  /** Set when the lock is found lost; `signal` aborts with it. */
  private lostWith: LockLostError | undefined;
  /** Made on the first nested call: most leases have none. */
  private gate: ReentryGate | undefined;
  /**
   * What the leases this grant passes through share (see takeOver): the latest the key may last, and
   * the waiters that took the grant over and still stand in the line — named to the release, which
   * takes them out, and taken out by the first renewal otherwise. Made at the grant's first take-over.
   */
  private shared: SharedGrant | undefined;
  /** Renewals sent and not answered yet, and the longest lease among them (see sendRenewal). */
  private renewalsOut = 0;
  private renewalOutMs = 0;

  constructor(parts: LeaseParts) {
    const { settings, store, acquiredAt } = parts;
    this.key = parts.key;
    this.token = parts.token;
    this.fence = parts.fence;
    this.#store = store;
    this.settings = settings;
    this.logger = parts.logger;
    this.acquiredAt = acquiredAt;
    this.#use = parts.use;
    this.label = parts.label;
    this.leaseMs = settings.lockTime;
    const { grant } = parts;
    const now = Date.now();
    const validMs = this.validFor(settings.lockTime);
    // A grant taken over (see takeOver) is known ours until its former holder knew it was, and
    // lasts no longer than that holder's lease: the take-over itself sends nothing.
    this.expiresAt = Math.min(acquiredAt + validMs, grant?.expiresAt ?? Infinity);
    this.ownMayLastUntil = now + this.lastsAtMostFor(settings.lockTime); // unread while `shared` is set
    this.shared = grant?.shared;
    this.renewing = settings.watchdog;
    // The first renewal comes when two thirds of a lease are left, as every later one does: a third
    // of the lease from a new grant, sooner for a grant taken over that has less left.
    if (this.renewing) this.scheduleRenewal(this.untilTwoThirdsLeft(now));
  }

  /**
   * How long a grant or renewal of `leaseMs` is known to last, from when it was sent: its lease less
   * the clocks' drift (only a Redlock store has any). The holder counts no further, and renews or is
   * lost within that.
   */
  private validFor(leaseMs: number): number {
    return leaseMs - (this.#store.clockDriftMs?.(leaseMs) ?? 0);
  }

  /** How long a grant or renewal of `leaseMs` may last at most, from when it was answered: its lease plus the drift. */
  private lastsAtMostFor(leaseMs: number): number {
    return leaseMs + (this.#store.clockDriftMs?.(leaseMs) ?? 0);
  }

  /** From `now` until two thirds of a lease are left before `expiresAt`: when a first renewal is due (0 if past). */
  private untilTwoThirdsLeft(now: number): number {
    return Math.max(0, this.expiresAt - now - (this.validFor(this.leaseMs) - this.leaseMs / 3));
  }

  /** The latest the key may last (see ownMayLastUntil). */
  private get mayLastUntil(): number {
    return this.shared ? this.shared.mayLastUntil : this.ownMayLastUntil;
  }

  /**
   * The latest the key may last, should the renewals still on their way land now: a waiter that
   * takes the grant over must not find the key lasting longer than its own lease (mayTakeOver).
   */
  private mayLastUntilWithRenewalsOut(): number {
    if (this.renewalsOut === 0) return this.mayLastUntil;
    return Math.max(this.mayLastUntil, Date.now() + this.lastsAtMostFor(this.renewalOutMs));
  }

  /** A renewal of `leaseMs` was answered, or may have landed: the key may last that lease from now. */
  private mayLastAtLeast(leaseMs: number): void {
    const until = Date.now() + this.lastsAtMostFor(leaseMs);
    if (this.shared) this.shared.mayLastUntil = Math.max(this.shared.mayLastUntil, until);
    else this.ownMayLastUntil = Math.max(this.ownMayLastUntil, until);
  }

  /**
   * The lease of a waiter that takes over a holder's grant (see succession.ts): the key keeps the
   * grant's token and is known ours until the holder knew it was. Nothing is sent: the waiter's place
   * in the line is named to the grant's release, which takes it out (succession.ts, leavingLine), and
   * the first renewal — when two thirds of the waiter's lease are left, as for any lease — is the
   * take-over script, which renews the key for this lease and takes it out then, should the body last
   * that long. Most sections on a hot key end long before, and cost no command of their own. A
   * waiter that came during its process's turn took no place (Waiters.turnRunsHere): none to leave.
   */
  static takeOver(parts: TakeOverParts): Lease {
    const { shared } = parts.grant;
    if (parts.inLine) shared.leavingLine.add(parts.waiterToken);
    return new Lease({ ...parts, token: shared.token, acquiredAt: Date.now() });
  }

  /** True until released, lost, or past the last moment the key was known to be ours. */
  get held(): boolean {
    return this.state === 'held' && Date.now() < this.expiresAt;
  }

  /** Aborts when the lock is lost, so a long body can stop early. Created on first use. */
  get signal(): AbortSignal {
    this.abort ??= new AbortController();
    if (this.lostWith && !this.abort.signal.aborted) this.abort.abort(this.lostWith);
    return this.abort.signal;
  }

  /** True once released: the body it was taken for has ended. */
  get ended(): boolean {
    return this.state === 'released';
  }

  get redlock(): boolean {
    return this.settings.redlock === true;
  }

  /** What JSON (a logger's) shows of a lease: its key, its fence and whether it is held; nothing of where. */
  toJSON(): { key: string; fence: number | undefined; state: 'held' | 'released' | 'lost' } {
    return { key: this.key, fence: this.fence, state: this.state };
  }

  /** What util.inspect and console.log show: the same. */
  [Symbol.for('nodejs.util.inspect.custom')](
    _depth: number,
    options: object,
    inspect?: (value: unknown, options: object) => string,
  ): string {
    return `Lease ${inspect ? inspect(this.toJSON(), options) : JSON.stringify(this.toJSON())}`;
  }

  /**
   * Runs the locked body, recorded as its chain's innermost lock (currentLock()); with reentrancy
   * on, nested calls in it see the key as held.
   */
  run<T>(body: () => T | PromiseLike<T>): Promise<T> {
    // A released or lost lease runs nothing: the body would run beside the key's next holder.
    if (this.state !== 'held') return Promise.reject(this.notHeld('run a body under'));
    if (this.label && holdChannel.hasSubscribers) {
      const trace: HoldTrace = { ...this.label, key: this.key };
      return holdChannel.tracePromise(() => runBody(this, body, this.settings.reentrant), trace) as Promise<T>;
    }
    return runBody(this, body, this.settings.reentrant);
  }

  /**
   * What the grant was taken with, that a call nested in it cannot add (api/define-lock.ts refuses
   * one that asks for more): a nested call runs under this grant and its release.
   */
  get grantTerms(): { readonly fenced: boolean; readonly replicas: number; readonly keptFor: number } {
    const { settings } = this;
    return {
      fenced: this.fence !== undefined,
      replicas: settings.replicas ?? 0,
      // How long past its start the release keeps the key: its whole lease without autoUnlock.
      keptFor: settings.autoUnlock ? (settings.minHold ?? 0) : Number.POSITIVE_INFINITY,
    };
  }

  /** Where nested calls of this lease take turns (see reentry-gate.ts). */
  get reentryGate(): ReentryGate {
    return (this.gate ??= new ReentryGate(this));
  }

  release(): Promise<void> {
    if (this.state === 'released') return Promise.resolve();
    if (this.gate?.busy) return this.releaseWhenIdle();
    // Nothing nested holds the key: released now, without an async frame of its own (a promise and
    // a turn of the microtask queue on every section). The woven method's caller awaits this
    // release: the process stays up until it is answered (bounded by the store's command bound; a
    // retry after that runs in the background, unheld); releaseHeld ends the hold as it settles.
    return this.releaseHeld(holdProcess());
  }

  private async releaseWhenIdle(): Promise<void> {
    // Nested calls the body started and did not await, and nested leases not yet released, hold
    // the key through this grant: it is kept (and renewed) until they end, or they would run
    // beside its next holder. Again until idle at once: one may enter as the wait ends. That wait
    // has no bound — a nested call may never end — so it does not hold the process: what the
    // nested calls wait for does, as a body's own awaits do; the release after it does.
    for (let gate = this.gate; gate?.busy; ) await gate.idle();
    if (this.ended) return; // released meanwhile, by another call of release()
    await this.releaseHeld(holdProcess());
  }

  /** Releases the key now; `letGo`, if given, ends the caller's hold on the process as it settles. */
  private async releaseHeld(letGo?: () => void): Promise<void> {
    try {
      // A lease the watchdog gave up on may still be ours (Redis was only unreachable), and the
      // release is token-checked, so it is still attempted; it just is not reported lost twice.
      const alreadyLost = this.state === 'lost';
      this.state = 'released';
      this.stopWatchdog();
      const endedAt = Date.now();
      const heldMs = endedAt - this.acquiredAt;
      if (!this.settings.autoUnlock) {
        // The key stays held, by nobody's body: this process's turn at it ends (Waiters.setTurn).
        waitersOf(this.#store).setTurn(this.key, false);
        await this.leaveLineUnreleased();
        this.logger?.({ type: 'kept', key: this.key, token: this.token, heldMs });
        this.#use?.end();
        return;
      }
      const holdLeftMs = (this.settings.minHold ?? 0) - heldMs;
      if (holdLeftMs > 0 && !alreadyLost) return await this.keepForMinHold(holdLeftMs, heldMs);
      // Who gets the key next is succession.ts's decision; this carries it out.
      const waiters = waitersOf(this.#store);
      const succession = decideSuccession(
        {
          key: this.key,
          store: this.#store,
          expiresAt: this.expiresAt,
          mayLastUntil: this.mayLastUntilWithRenewalsOut(),
          lost: alreadyLost,
          leavingLine: this.shared?.leavingLine,
        },
        waiters,
      );
      const { successor } = succession;
      if (succession.kind === 'take-over') {
        noteSuccession(waiters, this.key, succession);
        this.logger?.({ type: 'released', key: this.key, token: this.token, heldMs });
        succession.successor.succeed({
          sentAt: Date.now(),
          grant: {
            // Made once per grant, and handed along its take-overs: each taker joins its line (takeOver),
            // and a renewal still on its way raises the bound every later lease of the grant reads.
            shared: (this.shared ??= { token: this.token, mayLastUntil: this.ownMayLastUntil, leavingLine: new Set() }),
            expiresAt: this.expiresAt,
          },
        });
        this.#use?.end();
        return;
      }
      const sentAt = Date.now();
      try {
        const released = await this.#store.release(this.key, this.token, succession.request);
        noteSuccession(waiters, this.key, succession, released);
        if (released === 'not-ours') {
          successor?.unreserve(false);
          if (!alreadyLost)
            this.reportLost('its lease had ended before the release, and the key was no longer ours to delete');
        } else {
          // Reported before the successor wakes, so logs read "released", then "acquired".
          this.logger?.({ type: 'released', key: this.key, token: this.token, heldMs });
          if (released === 'handed') successor!.succeed({ sentAt });
          else successor?.unreserve(released === 'freed');
        }
        this.#use?.end();
      } catch (error) {
        // Where the key went is not known: this process's turn ends (Waiters.setTurn).
        waiters.setTurn(this.key, false);
        successor?.unreserve(false);
        this.logger?.({ type: 'error', key: this.key, token: this.token, during: 'release', error: error as Error });
        // A body that ran past the last moment the key was known ours (the watchdog off, or the lapse
        // due but not yet run) has no answer to say the key stayed ours: reported lost, as a release
        // answered "not ours" is — before this release resolves, so the caller's logger has it first.
        if (!alreadyLost && endedAt >= this.expiresAt)
          this.reportLost(
            'its lease had ended before the release, and Redis did not answer whether the key was still ours',
          );
        this.retryRelease();
      }
    } finally {
      letGo?.();
    }
  }

  /**
   * minHold: a body that ended before acquiredAt + minHold leaves the key to expire then, by itself —
   * a token-checked PEXPIRE (the renewal verb; on Redlock, on a majority) — rather than deleting it,
   * so that another instance whose timer fired a little later finds it held and skips the tick. No
   * succession and no notice: waiters find the key free at their next attempt. Should Redis not
   * answer, the key keeps its lease, which ends no sooner (minHold ≤ lockTime, counted from the same start).
   */
  private async keepForMinHold(leftMs: number, heldMs: number): Promise<void> {
    waitersOf(this.#store).setTurn(this.key, false); // the key goes to nobody here (Waiters.setTurn)
    const sentAt = Date.now();
    try {
      const stillOurs = await this.sendRenewal(leftMs);
      // A "no" that came after the hold would have ended says nothing (on Redlock: a majority too late).
      if (!stillOurs && Date.now() - sentAt < leftMs)
        this.reportLost('its lease had ended before the release, and the key was no longer ours to keep');
      else this.logger?.({ type: 'kept', key: this.key, token: this.token, heldMs, forMs: leftMs });
    } catch (error) {
      this.logger?.({ type: 'error', key: this.key, token: this.token, during: 'release', error: error as Error });
    } finally {
      this.#use?.end();
    }
  }

  /**
   * A key kept to lapse by itself has no release to take the waiters that took it over out of the
   * line: they leave it now, rather than stand at its head until their places lapse.
   */
  private async leaveLineUnreleased(): Promise<void> {
    const leaving = leavingLineOf(this.shared?.leavingLine);
    if (leaving)
      await Promise.all(leaving.map((waiterToken) => this.#store.leave(this.key, waiterToken).catch(() => undefined)));
  }

  /**
   * A release Redis did not answer (a restart, a failover, a cut connection) would leave the key
   * locked until its TTL ends — 30 s by default — though its holder is done: sent again
   * (clean-up.ts) until Redis answers or the key may last no longer (`mayLastUntil`: after a take-over
   * or renewal not answered, the longer of the leases it may have).
   */
  private retryRelease(): void {
    sendAgain<Released>({
      store: this.#store,
      until: () => this.mayLastUntil,
      send: () => {
        const leavingLine = leavingLineOf(this.shared?.leavingLine);
        return this.#store.release(this.key, this.token, leavingLine && { leavingLine });
      },
      done: (released) => {
        // not-ours: the key is gone already (the first release did run, or Redis restarted empty).
        if (released !== undefined && released !== 'not-ours')
          this.logger?.({ type: 'released', key: this.key, token: this.token, heldMs: Date.now() - this.acquiredAt });
        this.#use?.end();
      },
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  /**
   * Makes the key last `ms` from now (token-checked, as a renewal: on Redlock, on a majority), and
   * `ms` the lease's length from here on: the watchdog, if it renews, renews by `ms`. Like
   * node-redlock's extend() it sets the time left, so an `ms` shorter than what is left shortens it.
   * Rejects with LockLostError when the lease was released or lost, or the key is no longer ours
   * (the lease is then lost, reported as the watchdog reports it); with the store's error when
   * Redis did not answer (the key may or may not last the new time: the lease counts the shorter).
   */
  async extend(ms: number): Promise<void> {
    const problem = KINDS.duration.problem('extend(ms)', ms) ?? tooLong('extend(ms)', ms);
    if (problem) throw new RangeError(`lockweave: ${problem}`);
    if (!this.held) throw this.notHeld('extend');
    // Renewals from now on are of `ms`: one the watchdog sent before this lands before it (one
    // connection, in order; on Redlock one per server) and is counted with the length it was sent with.
    this.stopWatchdog();
    this.leaseMs = ms;
    const sentAt = Date.now();
    let stillOurs: boolean;
    // Its caller awaits the answer: the process stays up until it settles, as for a release.
    const letGo = holdProcess();
    try {
      stillOurs = await this.sendRenewal(ms);
    } catch (error) {
      this.renewFailed(error);
      this.resumeWatchdog(this.retryDelay());
      throw error;
    } finally {
      letGo();
    }
    if (!stillOurs) {
      if (this.state === 'held') this.reportLost('extend() found the key no longer ours');
      throw this.notHeld('extend');
    }
    this.renewed(true, sentAt, ms);
    this.resumeWatchdog();
  }

  /** The watchdog's next renewal, a third of the lease from now, unless it is stopped or one is due already. */
  private resumeWatchdog(delayMs?: number): void {
    if (this.renewing && this.state === 'held' && !this.renewTimer) this.scheduleRenewal(delayMs);
  }

  /** The watchdog stops: the lease runs out at its TTL, unless released or extended before. */
  stopRenewal(): void {
    this.renewing = false;
    this.renewedFor.clear();
    this.stopWatchdog();
  }

  /**
   * Keeps the lease renewed, whatever its own `watchdog`, until the function it returns is called:
   * a nested call that asks for the watchdog (nested-lease.ts), holding its turn inside a lease taken
   * without it, would otherwise outlast the lock. The first renewal comes when two thirds of a lease
   * are left, at once if less is. A stopRenewal() meanwhile stops it for good.
   */
  keepRenewed(): () => void {
    if (this.state !== 'held' || (this.renewing && this.renewedFor.size === 0)) return () => undefined;
    const call = {};
    this.renewedFor.add(call);
    if (this.renewedFor.size === 1) {
      this.renewing = true;
      this.resumeWatchdog(this.untilTwoThirdsLeft(Date.now()));
    }
    return () => {
      // Not this call's to end after a stopRenewal(), nor twice; the last one out stops the watchdog.
      if (!this.renewedFor.delete(call) || this.renewedFor.size > 0) return;
      this.renewing = false;
      this.stopWatchdog();
    };
  }

  /** Why an operation on the lease cannot be done: it was released, or lost. */
  private notHeld(operation: string): LockLostError {
    if (this.lostWith) return new LockLostError(`cannot ${operation} ${this.key}: ${this.lostWith.message}`, this.key);
    const why = this.state === 'released' ? 'it was released' : 'its lease ended';
    return new LockLostError(`cannot ${operation} the lock on ${this.key}: ${why}`, this.key);
  }

  private scheduleRenewal(delayMs = this.leaseMs / 3): void {
    // A third of the lease: two renewals can fail (a restarting Redis, a reset connection) before it
    // ends. Not two that stall to their command timeout: the lapse timer (armLapse) bounds those.
    this.renewTimer = setTimer(() => {
      this.renewTimer = undefined;
      void this.renew();
    }, delayMs);
    // The body keeps the process alive while it works; the watchdog alone must not.
    this.renewTimer.unref();
  }

  private async renew(): Promise<void> {
    const startedAt = Date.now();
    const leaseMs = this.leaseMs;
    let delayMs: number | undefined;
    try {
      this.renewed(await this.sendRenewal(leaseMs), startedAt, leaseMs);
    } catch (error) {
      this.renewFailed(error);
      delayMs = this.retryDelay();
    }
    // Not again after stopRenewal(), nor beside a timer extend() set while this renewal was out.
    this.resumeWatchdog(delayMs);
  }

  /**
   * When to renew again after a renewal failed: a third of the lease would often come after the
   * lease's end (a stalled renewal fails only at its command timeout, 2 s after it was sent), when
   * no renewal can save it. Halfway to the end instead, so one more try lands while the lease
   * lasts; no sooner than RETRY_MS, so a Redis that refuses at once is not asked in a burst.
   */
  private retryDelay(): number {
    return Math.min(this.leaseMs / 3, Math.max(RETRY_MS, (this.expiresAt - Date.now()) / 2));
  }

  /**
   * Makes the key last `leaseMs` from now, if it is still ours. While waiters that took this grant
   * over still stand in the line (they are named to the release until then), it is the take-over
   * script, once for each of them: it renews the key and takes the waiter out of the line.
   */
  private sendRenewal(leaseMs: number): Promise<boolean> {
    this.renewalsOut++;
    this.armLapse();
    this.renewalOutMs = Math.max(this.renewalOutMs, leaseMs);
    // Its answer raises the bound the grant's releases are retried to, in the same step, so no
    // decision reads neither; also when this lease was released meanwhile — its grant may have been
    // taken over (the bound is shared), or its release sent and retried (it reads the bound at each send).
    const answered = (stillOurs: boolean): boolean => {
      if (--this.renewalsOut === 0) this.renewalOutMs = 0;
      // Yes: the key lasts a lease from the renewal. No answer: it may have landed all the same.
      if (stillOurs) this.mayLastAtLeast(leaseMs);
      return stillOurs;
    };
    const failed = (error: unknown): never => {
      answered(true);
      throw error;
    };
    const leaving = leavingLineOf(this.shared?.leavingLine);
    if (!leaving) return this.#store.renew(this.key, this.token, leaseMs).then(answered, failed);
    const { leavingLine } = this.shared!;
    return Promise.all(
      leaving.map((waiterToken) =>
        this.#store.takeOver!(this.key, this.token, leaseMs, waiterToken).then((stillOurs) => {
          leavingLine.delete(waiterToken); // out of the line, whatever the key holds
          return stillOurs;
        }),
      ),
    ).then((answers) => answered(answers.every(Boolean)), failed);
  }

  /** A renewal of `leaseMs` sent at `sentAt` came back. */
  private renewed(stillOurs: boolean, sentAt: number, leaseMs: number): void {
    if (this.state !== 'held') return;
    if (!stillOurs) return this.reportLost('the watchdog found the key no longer ours');
    this.expiresAt = sentAt + this.validFor(leaseMs);
    // The lease's end moved: nothing left to wait on, or a renewal still out waits for the new end.
    this.clearLapse();
    if (this.renewalsOut > 0) this.armLapse();
    this.logger?.({ type: 'renewed', key: this.key, token: this.token });
  }

  private renewFailed(error: unknown): void {
    if (this.state !== 'held') return;
    this.logger?.({ type: 'error', key: this.key, token: this.token, during: 'renew', error: error as Error });
    // We cannot know it is ours past the last confirmed expiry. Before it, the lapse timer
    // (armed when this renewal was sent) stays set for it, unless a later renewal is confirmed.
    if (Date.now() >= this.expiresAt) this.reportLost(LAPSED);
  }

  /**
   * Sets the lapse timer for `expiresAt`, when the watchdog renews and none is set. A renewal on a
   * stalled connection (a partition: no reset, nothing passes) settles only at its command timeout,
   * and the next one comes a third of a lease after that: without this timer the lease was found
   * lost seconds after another process could hold the key, or never when the body ended first.
   */
  private armLapse(): void {
    if (this.lapseTimer || !this.renewing || this.state !== 'held') return;
    this.lapseTimer = setTimer(() => {
      this.lapseTimer = undefined;
      if (this.state !== 'held') return;
      // A timer may fire a millisecond before Date.now() gets there (timers run on the loop's
      // monotonic clock); `held` reads Date.now(), and so does this.
      if (Date.now() < this.expiresAt) return this.armLapse();
      this.reportLost(LAPSED);
    }, this.expiresAt - Date.now());
    // The body keeps the process alive while it works; the watchdog alone must not.
    this.lapseTimer.unref();
  }

  private clearLapse(): void {
    if (!this.lapseTimer) return;
    clearTimeout(this.lapseTimer);
    this.lapseTimer = undefined;
  }

  private stopWatchdog(): void {
    clearTimeout(this.renewTimer);
    this.renewTimer = undefined;
    this.clearLapse();
  }

  private reportLost(reason: string): void {
    if (this.state === 'held') this.state = 'lost';
    this.stopWatchdog();
    const error = new LockLostError(`lost the lock on ${this.key}: ${reason}`, this.key);
    this.lostWith = error;
    this.abort?.abort(error);
    this.logger?.({ type: 'lost', key: this.key, token: this.token, error });
  }
}

// Nested reentrant calls' leases live in nested-lease.ts; exported here too, where callers found them.
export { NestedLease, type AnyLease, type NestedEntry } from './nested-lease';
