// Generated sequences of store verbs and clock steps (fast-check's model-based testing): each
// command runs on the model and on a store, and their answers and every key's view must agree.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { ProtocolModel, type KeyView, type ModelWaiter } from './model';
import type { StoreDriver } from './store-driver';

/** The model and one store, run side by side over one sequence. */
export class World {
  readonly model: ProtocolModel;
  private readonly waiters = new Map<string, ModelWaiter>();
  /** How many commands this sequence ran (summed across runs for the report). */
  steps = 0;

  constructor(
    readonly driver: StoreDriver,
    /** Each sequence's own keys (a real server keeps the last run's). */
    private readonly prefix: string,
    /** How far a store's TTL may stray from the model's: 0 on a stepped clock. */
    private readonly ttlSlack: (view: KeyView, now: number) => number,
  ) {
    this.model = new ProtocolModel();
  }

  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  /** The waiter `token` is at `key`, made with the first command that names it. */
  waiter(key: string, token: string, leaseMs: number, placeLastsMs: number, fenced: boolean): ModelWaiter {
    const id = `${key}\n${token}`;
    let waiter = this.waiters.get(id);
    if (!waiter) this.waiters.set(id, (waiter = { token, leaseMs, placeLastsMs, fenced }));
    return waiter;
  }

  async step<T>(what: string, model: () => T, store: () => Promise<T>): Promise<void> {
    this.steps++;
    const expected = model();
    const got = await store();
    if (!isDeepStrictEqual(expected, got))
      throw new Error(`${what}: the model answers ${String(expected)}, the store ${String(got)}`);
    await this.compareKeys(what);
  }

  async compareKeys(after: string): Promise<void> {
    for (const key of this.model.keyNames()) {
      const expected = this.model.view(key);
      const got = await this.driver.view(key);
      const slack = this.ttlSlack(expected, this.model.now);
      const ttlAgrees =
        expected.ttlMs === undefined
          ? got.ttlMs === undefined
          : got.ttlMs !== undefined && Math.abs(got.ttlMs - expected.ttlMs) <= slack;
      if (
        expected.holder !== got.holder ||
        !ttlAgrees ||
        !isDeepStrictEqual(expected.waiting, got.waiting) ||
        expected.claimed !== got.claimed
      ) {
        throw new Error(
          `after ${after}, ${key}: the model has ${JSON.stringify(expected)}, the store ${JSON.stringify(got)}`,
        );
      }
    }
  }
}

type Command = fc.AsyncCommand<object, World>;

const KEYS = ['a', 'b'];
const TOKENS = ['t0', 't1', 't2', 't3'];
const LEASES = [5_000, 20_000, 60_000];
const PLACE_LASTS = [3_000, 10_000, 30_000];
/** Steps of the clock around the times that matter: the claim and its mark (2 s), places, leases. */
const STEPS = [1, 1_000, 1_999, 2_000, 3_000, 5_000, 10_000, 30_000, 60_000];

const key = fc.constantFrom(...KEYS);
const token = fc.constantFrom(...TOKENS);
const lease = fc.constantFrom(...LEASES);
interface WaiterArgs {
  token: string;
  lease: number;
  lasts: number;
  fenced: boolean;
}
const waiterArb: fc.Arbitrary<WaiterArgs> = fc.record({
  token,
  lease,
  lasts: fc.constantFrom(...PLACE_LASTS),
  fenced: fc.boolean(),
});

abstract class Base implements Command {
  check(): boolean {
    return true;
  }
  abstract run(_m: object, world: World): Promise<void>;
  abstract toString(): string;
}

export class TryAcquire extends Base {
  constructor(
    readonly k: string,
    readonly t: string,
    readonly lease: number,
    readonly fenced: boolean,
  ) {
    super();
  }
  run(_m: object, w: World): Promise<void> {
    const k = w.key(this.k);
    return w.step(
      this.toString(),
      () => w.model.tryAcquire(k, this.t, this.lease, this.fenced),
      () => w.driver.tryAcquire(k, this.t, this.lease, this.fenced),
    );
  }
  toString(): string {
    return `tryAcquire(${this.k},${this.t},${this.lease},${this.fenced})`;
  }
}

export class TryAcquireInTurn extends Base {
  constructor(
    readonly k: string,
    readonly w: WaiterArgs,
    /** A claim the waiter's process saw go unconfirmed (LockStore.tryAcquireInTurn), or none. */
    readonly staleClaim: string | null = null,
  ) {
    super();
  }
  run(_m: object, world: World): Promise<void> {
    const k = world.key(this.k);
    const waiter = world.waiter(k, this.w.token, this.w.lease, this.w.lasts, this.w.fenced);
    const stale = this.staleClaim ?? undefined;
    return world.step(
      this.toString(),
      () => world.model.tryAcquireInTurn(k, waiter, stale),
      () => world.driver.tryAcquireInTurn(k, waiter, stale),
    );
  }
  toString(): string {
    return `tryAcquireInTurn(${this.k},${JSON.stringify(this.w)},${JSON.stringify(this.staleClaim)})`;
  }
}

export class Renew extends Base {
  constructor(
    readonly k: string,
    readonly t: string,
    readonly lease: number,
  ) {
    super();
  }
  run(_m: object, w: World): Promise<void> {
    const k = w.key(this.k);
    return w.step(
      this.toString(),
      () => w.model.renew(k, this.t, this.lease),
      () => w.driver.renew(k, this.t, this.lease),
    );
  }
  toString(): string {
    return `renew(${this.k},${this.t},${this.lease})`;
  }
}

export class TakeOver extends Base {
  constructor(
    readonly k: string,
    readonly t: string,
    readonly lease: number,
    readonly waiter: string,
  ) {
    super();
  }
  run(_m: object, w: World): Promise<void> {
    const k = w.key(this.k);
    return w.step(
      this.toString(),
      () => w.model.takeOver(k, this.t, this.lease, this.waiter),
      () => w.driver.takeOver(k, this.t, this.lease, this.waiter),
    );
  }
  toString(): string {
    return `takeOver(${this.k},${this.t},${this.lease},${this.waiter})`;
  }
}

interface SuccessorArgs {
  token: string;
  lease: number;
  fenced: boolean;
  goesAhead: boolean;
}

export class Release extends Base {
  constructor(
    readonly k: string,
    readonly t: string,
    readonly successor: SuccessorArgs | null,
    readonly leaving: string[],
  ) {
    super();
  }
  run(_m: object, w: World): Promise<void> {
    const k = w.key(this.k);
    const s = this.successor;
    // A successor that never stood in line is made with a place lasting as long as any.
    const successor = s ? w.waiter(k, s.token, s.lease, PLACE_LASTS[PLACE_LASTS.length - 1]!, s.fenced) : undefined;
    const goesAhead = s?.goesAhead ?? false;
    return w.step(
      this.toString(),
      () => w.model.release(k, this.t, successor, goesAhead, this.leaving),
      () => w.driver.release(k, this.t, successor, goesAhead, this.leaving),
    );
  }
  toString(): string {
    return `release(${this.k},${this.t},${JSON.stringify(this.successor)},${JSON.stringify(this.leaving)})`;
  }
}

export class Leave extends Base {
  constructor(
    readonly k: string,
    readonly t: string,
  ) {
    super();
  }
  run(_m: object, w: World): Promise<void> {
    const k = w.key(this.k);
    return w.step(
      this.toString(),
      () => w.model.leave(k, this.t),
      () => w.driver.leave(k, this.t),
    );
  }
  toString(): string {
    return `leave(${this.k},${this.t})`;
  }
}

export class Advance extends Base {
  constructor(readonly ms: number) {
    super();
  }
  async run(_m: object, w: World): Promise<void> {
    w.steps++;
    const lapses = w.model.advance(this.ms);
    await w.driver.advance(this.ms, lapses);
    await w.compareKeys(this.toString());
  }
  toString(): string {
    return `advance(${this.ms})`;
  }
}

export const storeCommands: fc.Arbitrary<Command>[] = [
  fc.tuple(key, token, lease, fc.boolean()).map(([k, t, l, f]) => new TryAcquire(k, t, l, f)),
  fc.tuple(key, waiterArb).map(([k, w]) => new TryAcquireInTurn(k, w)),
  fc.tuple(key, waiterArb, token).map(([k, w, c]) => new TryAcquireInTurn(k, w, c)),
  fc.tuple(key, token, lease).map(([k, t, l]) => new Renew(k, t, l)),
  fc.tuple(key, token, lease, token).map(([k, t, l, w]) => new TakeOver(k, t, l, w)),
  fc
    .tuple(
      key,
      token,
      fc.option(fc.record({ token, lease, fenced: fc.boolean(), goesAhead: fc.boolean() }), { nil: null }),
      fc.subarray(TOKENS, { maxLength: 2 }),
    )
    .map(([k, t, s, l]) => new Release(k, t, s, l)),
  fc.tuple(key, token).map(([k, t]) => new Leave(k, t)),
  fc.constantFrom(...STEPS).map((ms) => new Advance(ms)),
];

/** How many sequences a run tries: LOCKWEAVE_MODEL_RUNS for a longer exploration. */
export function modelRuns(byDefault: number): number {
  const asked = Number(process.env.LOCKWEAVE_MODEL_RUNS);
  return Number.isSafeInteger(asked) && asked > 0 ? asked : byDefault;
}

/** LOCKWEAVE_MODEL_SEED and LOCKWEAVE_MODEL_PATH replay one run fast-check reported. */
export function replay(): { seed?: number; path?: string } {
  const seed = Number(process.env.LOCKWEAVE_MODEL_SEED);
  return Number.isSafeInteger(seed) ? { seed, path: process.env.LOCKWEAVE_MODEL_PATH } : {};
}

const inTurnOn = (k: string, token: string, staleClaim: string | null = null) =>
  new TryAcquireInTurn(k, { token, lease: 5_000, lasts: 10_000, fenced: false }, staleClaim);

/**
 * A claim left unconfirmed is taken by the next in line, a confirmed one is not (the stale-claim
 * rule, store/scripts/acquire-in-turn.ts). `world.step` checks each answer against the model's and
 * the store's keys after it; `claimTakenOver` reads the model's end state.
 */
export const claimSequence: readonly Command[] = [
  new TryAcquire('a', 't0', 60_000, false),
  inTurnOn('a', 't1'),
  inTurnOn('a', 't2'),
  new Release('a', 't0', null, []), // passed to t1: a claim, marked
  inTurnOn('a', 't2', 't1'), // t1 has not come: t2, now first in line, takes the key
  inTurnOn('a', 't1'), // t1 comes late: back in line, at its own place
  new Release('a', 't2', null, []), // passed to t1 again
  inTurnOn('a', 't1'), // confirmed: a lease, no longer a claim
  inTurnOn('a', 't2', 't1'), // too late: t1's lease is not taken
];

/**
 * A release that names a successor not in line (a waiter that came during its process's turn took
 * no place): handed over when nobody stands in line, passed to the first in line otherwise.
 */
export const placelessSuccession: readonly Command[] = [
  new TryAcquire('a', 't0', 60_000, false),
  new Release('a', 't0', { token: 't1', lease: 5_000, fenced: false, goesAhead: false }, []), // nobody in line: t1's
  inTurnOn('a', 't2'),
  new Release('a', 't1', { token: 't3', lease: 5_000, fenced: false, goesAhead: true }, []), // t2 waits: passed to t2
];

export function claimTakenOver(world: World): KeyView {
  return world.model.view(world.key('a'));
}
