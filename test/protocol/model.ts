// The lock store's protocol (runtime/store/lock-store.ts) written once, as a state machine on an
// explicit clock: what every store must answer and leave behind, verb by verb. The Redis scripts
// (store/scripts/) and MemoryLockStore (store/memory-store.ts) are checked against it
// (store-model.test.ts, redis-model.test.ts).
//
// Places: a new one is past every place given out before, so a waiter whose place lapsed comes back
// before every newcomer. Both stores number so (the clock in µs, or one more than the last place
// when that is later: store/scripts/line-helpers.ts, MemoryLockStore), so the model counts arrivals.
//
// Its tokens name no process, so no pass here binds (store/lock-store.ts, BINDS_WITHIN_MS: whether one
// does depends on Redis's own clock, which the model's stepped one does not drive). Binding passes run
// through the lock layer in the interleavings (interleavings-*.test.ts), whose tokens are the runtime's.
import { CLAIM_MS } from '../../runtime/store/lock-store';

/** An attempt's answer with the fencing number left out (the stores' clocks differ): whether a number came. */
export type ModelGrant = false | true | 'fenced';
export type ModelReleased = 'not-ours' | 'freed' | 'handed' | 'passed';

export interface ModelWaiter {
  readonly token: string;
  readonly leaseMs: number;
  readonly placeLastsMs: number;
  readonly fenced: boolean;
  /** Its place, set by its first attempt and kept for the later ones. */
  place?: number;
}

interface Place {
  readonly token: string;
  readonly place: number;
  lapsesAt: number;
}

interface Holder {
  readonly token: string;
  expiresAt: number;
  /** When the lease was last set: how far a real server's TTL may stray from the model's. */
  setAt: number;
}

/** A claim's mark beside the key (store/waiting-line.ts, claimMarkOf): it lasts on its own clock. */
interface ClaimMark {
  readonly token: string;
  readonly endsAt: number;
}

interface KeyState {
  holder?: Holder;
  claim?: ClaimMark;
  /** Every place not yet dropped, lapsed ones too. */
  line: Place[];
  /** When the line's own Redis keys expire (the scripts set them to outlast every place). */
  lineExpiresAt: number;
}

/** What a key looks like from outside: who holds it, for how long more, and who waits, in order. */
export interface KeyView {
  readonly holder: string | undefined;
  readonly ttlMs: number | undefined;
  /** Since when the model counts that TTL down (a real server's TTL strays by the model time skipped since). */
  readonly setAt: number | undefined;
  readonly waiting: readonly string[];
  /** The key holds a claim not yet confirmed (its mark names the holder). */
  readonly claimed: boolean;
}

/** What an advance of the clock made run out: a real server is made to catch up (store-driver.ts). */
export interface Lapses {
  readonly keys: string[];
  /** Keys whose claim's mark ran out. */
  readonly claims: string[];
  readonly places: { key: string; token: string }[];
  readonly lines: string[];
}

export class ProtocolModel {
  now = 0;
  /** Fenced grants made, per key: a store's numbers must rise with each. */
  readonly fencedGrants: { key: string }[] = [];
  private readonly keys = new Map<string, KeyState>();
  private nextPlace = 0;

  constructor(readonly claimMs = CLAIM_MS) {}

  advance(ms: number): Lapses {
    this.now += ms;
    const lapses: Lapses = { keys: [], claims: [], places: [], lines: [] };
    for (const [key, state] of this.keys) {
      if (state.claim && state.claim.endsAt <= this.now) {
        lapses.claims.push(key);
        state.claim = undefined;
      }
      if (state.holder && state.holder.expiresAt <= this.now) {
        lapses.keys.push(key);
        state.holder = undefined;
      }
      if (state.line.length > 0 && state.lineExpiresAt <= this.now) {
        lapses.lines.push(key);
        state.line = [];
      }
      for (const place of state.line) {
        if (place.lapsesAt <= this.now && place.lapsesAt > this.now - ms)
          lapses.places.push({ key, token: place.token });
      }
    }
    return lapses;
  }

  tryAcquire(key: string, token: string, leaseMs: number, fenced: boolean): ModelGrant {
    const state = this.state(key);
    if (state.holder) return false;
    this.hold(state, token, leaseMs);
    return this.grantFence(key, fenced);
  }

  /** `staleClaim`: a claim the waiter's process saw go unconfirmed; while the key holds it, marked, the key counts as free. */
  tryAcquireInTurn(key: string, waiter: ModelWaiter, staleClaim?: string): ModelGrant {
    const state = this.state(key);
    if (state.holder?.token === waiter.token) {
      state.claim = undefined;
      return this.grantInTurn(key, state, waiter);
    }
    let entry = state.line.find((place) => place.token === waiter.token);
    if (!entry) {
      entry = { token: waiter.token, place: waiter.place ?? this.newPlace(), lapsesAt: 0 };
      waiter.place = entry.place;
      state.line.push(entry);
      state.line.sort(this.order);
    }
    entry.lapsesAt = this.now + waiter.placeLastsMs;
    state.lineExpiresAt = Math.max(state.lineExpiresAt, this.now + waiter.placeLastsMs);
    const takesClaim =
      state.holder !== undefined && state.holder.token === staleClaim && state.claim?.token === state.holder.token;
    if (state.holder && !takesClaim) return false;
    this.dropLapsed(state);
    if (state.line[0]?.token !== waiter.token) return false;
    if (takesClaim) state.claim = undefined;
    return this.grantInTurn(key, state, waiter);
  }

  renew(key: string, token: string, leaseMs: number): boolean {
    const state = this.state(key);
    if (state.holder?.token !== token) return false;
    this.hold(state, token, leaseMs);
    return true;
  }

  takeOver(key: string, token: string, leaseMs: number, waiterToken: string): boolean {
    this.leaveLine(this.state(key), waiterToken);
    return this.renew(key, token, leaseMs);
  }

  release(
    key: string,
    token: string,
    successor?: ModelWaiter,
    goesAhead = false,
    leavingLine: readonly string[] = [],
    leaving = false,
  ): ModelReleased {
    const state = this.state(key);
    for (const taker of leavingLine) this.leaveLine(state, taker);
    if (state.holder?.token !== token) return 'not-ours';
    if (leaving) state.claim = undefined;
    this.dropLapsed(state);
    const standing = successor && state.line.find((place) => place.token === successor.token);
    const first = (goesAhead && standing) || state.line[0];
    // Nobody in line: the successor, in line or not, is the only one waiting.
    if (!first || first.token === successor?.token) {
      if (!successor) {
        state.holder = undefined;
        return 'freed';
      }
      this.leaveLine(state, successor.token);
      this.hold(state, successor.token, successor.leaseMs);
      if (successor.fenced) this.fencedGrants.push({ key });
      return 'handed';
    }
    this.leaveLine(state, first.token);
    this.hold(state, first.token, this.claimMs);
    state.claim = { token: first.token, endsAt: this.now + this.claimMs };
    return 'passed';
  }

  leave(key: string, token: string): ModelReleased {
    this.leaveLine(this.state(key), token);
    return this.release(key, token, undefined, false, [], true);
  }

  view(key: string): KeyView {
    const state = this.state(key);
    const { holder } = state;
    return {
      holder: holder?.token,
      ttlMs: holder && holder.expiresAt - this.now,
      setAt: holder?.setAt,
      waiting: state.line.filter((place) => place.lapsesAt > this.now).map((place) => place.token),
      claimed: holder !== undefined && state.claim?.token === holder.token,
    };
  }

  /** The keys the model has seen. */
  keyNames(): string[] {
    return [...this.keys.keys()];
  }

  private readonly order = (a: Place, b: Place): number => a.place - b.place;

  private newPlace(): number {
    return this.nextPlace++;
  }

  private grantInTurn(key: string, state: KeyState, waiter: ModelWaiter): ModelGrant {
    this.hold(state, waiter.token, waiter.leaseMs);
    this.leaveLine(state, waiter.token);
    return this.grantFence(key, waiter.fenced);
  }

  private grantFence(key: string, fenced: boolean): ModelGrant {
    if (!fenced) return true;
    this.fencedGrants.push({ key });
    return 'fenced';
  }

  private hold(state: KeyState, token: string, leaseMs: number): void {
    state.holder = { token, expiresAt: this.now + leaseMs, setAt: this.now };
  }

  private dropLapsed(state: KeyState): void {
    state.line = state.line.filter((place) => place.lapsesAt > this.now);
  }

  private leaveLine(state: KeyState, token: string): void {
    state.line = state.line.filter((place) => place.token !== token);
  }

  private state(key: string): KeyState {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { line: [], lineExpiresAt: 0 }));
    return state;
  }
}
