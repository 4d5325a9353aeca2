// Every call of a LockStore verb the protocol tests make, in one place: the verbs' signatures
// change here and nowhere else. A StoreDriver runs one store — MemoryLockStore on a stepped clock,
// or the Redis scripts on a real redis-server — with the model's arguments, answers in the model's
// terms, shows a key as the model does (KeyView), and makes the store catch up with the model's
// clock (advance).
import type { Redis } from 'ioredis';
import {
  passOf,
  type LockStore,
  type Notice,
  type PlaceInLine,
  type SuccessionRequest,
} from '../../runtime/store/lock-store';
import { MemoryLockStore } from '../../runtime/store/memory-store';
import type { RedisLockStore } from '../../runtime/store/redis-store';
import { claimMarkOf, waitingLineOf } from '../../runtime/store/waiting-line';
import type { KeyView, Lapses, ModelGrant, ModelReleased, ModelWaiter } from './model';

export interface StoreView extends Omit<KeyView, 'setAt'> {}

/** A fencing number that did not rise: the store broke its promise (lock-store.ts, Grant). */
export class FenceOrderError extends Error {
  constructor(key: string, last: number, fence: number) {
    super(`the fencing number of ${key} went from ${last} to ${fence}: it must rise with every fenced grant`);
  }
}

export abstract class StoreDriver {
  private readonly waiters = new Map<string, PlaceInLine>();
  private readonly fences = new Map<string, number>();

  constructor(readonly store: LockStore) {}

  abstract view(key: string): Promise<StoreView>;
  /** Makes what the model's clock let run out run out in the store too. */
  abstract advance(ms: number, lapses: Lapses): Promise<void>;

  async tryAcquire(key: string, token: string, leaseMs: number, fenced: boolean): Promise<ModelGrant> {
    const grant = await this.store.tryAcquire(key, token, leaseMs, fenced);
    return typeof grant === 'number' ? this.fenced(key, grant) : grant;
  }

  async tryAcquireInTurn(key: string, model: ModelWaiter, staleClaim?: string): Promise<ModelGrant> {
    const waiter = this.waiter(key, model);
    const before = waiter.fence;
    const took = await this.store.tryAcquireInTurn(key, waiter, staleClaim);
    if (took && waiter.fenced && waiter.fence !== before) return this.fenced(key, waiter.fence!);
    return took;
  }

  renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.store.renew(key, token, leaseMs);
  }

  takeOver(key: string, token: string, leaseMs: number, waiterToken: string): Promise<boolean> {
    return this.store.takeOver!(key, token, leaseMs, waiterToken);
  }

  async release(
    key: string,
    token: string,
    successor?: ModelWaiter,
    goesAhead = false,
    leavingLine: readonly string[] = [],
  ): Promise<ModelReleased> {
    const waiter = successor && this.waiter(key, successor);
    const before = waiter?.fence;
    const released = await this.store.release(key, token, { successor: waiter, goesAhead, leavingLine });
    if (released === 'handed' && waiter?.fenced) {
      if (waiter.fence === before)
        throw new Error(`${key} was handed to the fenced ${waiter.token} without a fencing number`);
      this.fenced(key, waiter.fence!);
    }
    return released;
  }

  leave(key: string, token: string): Promise<ModelReleased> {
    return this.store.leave(key, token);
  }

  /** This store's own PlaceInLine for the model's waiter: the store sets its place and fence. */
  private waiter(key: string, model: ModelWaiter): PlaceInLine {
    const id = `${key}\n${model.token}`;
    let waiter = this.waiters.get(id);
    if (!waiter) {
      waiter = {
        token: model.token,
        leaseMs: model.leaseMs,
        placeLastsMs: model.placeLastsMs,
        fenced: model.fenced,
        place: undefined,
      };
      this.waiters.set(id, waiter);
    }
    return waiter;
  }

  private fenced(key: string, fence: number): 'fenced' {
    const last = this.fences.get(key) ?? 0;
    if (!(fence > last)) throw new FenceOrderError(key, last, fence);
    this.fences.set(key, fence);
    return 'fenced';
  }
}

/** A clock a test steps by hand. */
export class SteppedClock {
  ms = 1_700_000_000_000;
  readonly now = (): number => this.ms;
}

export class MemoryDriver extends StoreDriver {
  declare readonly store: MemoryLockStore;

  constructor(readonly clock = new SteppedClock()) {
    super(new MemoryLockStore({ now: clock.now }));
  }

  async view(key: string): Promise<StoreView> {
    const holder = this.store.holder(key);
    return {
      holder,
      ttlMs: holder === undefined ? undefined : this.store.pttl(key),
      waiting: this.store.waiting(key),
      claimed: holder !== undefined && this.store.claimOf(key) === holder,
    };
  }

  async advance(ms: number): Promise<void> {
    this.clock.ms += ms;
  }
}

/**
 * Reads a key as the model shows it, in one atomic script: its holder, its TTL, the waiters whose
 * places have not lapsed (on the server's clock), in line order, and whether its claim's mark names
 * the holder.
 */
const VIEW_SCRIPT = `
local t = redis.call('time')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local live = {}
for _, token in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do
  local lapses = redis.call('zscore', KEYS[3], token)
  if lapses and tonumber(lapses) > now then live[#live + 1] = token end
end
local holder = redis.call('get', KEYS[1])
local claimed = 0
if holder and redis.call('get', KEYS[4]) == holder then claimed = 1 end
return {holder or '', redis.call('pttl', KEYS[1]), live, claimed}
`;

/**
 * The scripts on a real redis-server. Its clock cannot be stepped: leases and places are long
 * (seconds) so nothing runs out by itself during a sequence, and what the model's clock lets run out
 * is made to run out here — the key deleted (its lease or claim ended), the place's lapse time set
 * to 0, the line's keys deleted — before the next verb.
 */
export class RedisDriver extends StoreDriver {
  declare readonly store: RedisLockStore;

  /** `store`: one store on `client` for many sequences (each store adds listeners to its client). */
  constructor(
    readonly client: Redis,
    store: RedisLockStore,
  ) {
    super(store);
  }

  async view(key: string): Promise<StoreView> {
    const { line, lapses } = waitingLineOf(key);
    const [holder, pttl, waiting, claimed] = (await this.client.eval(
      VIEW_SCRIPT,
      4,
      key,
      line,
      lapses,
      claimMarkOf(key),
    )) as [string, number, string[], number];
    return {
      holder: holder === '' ? undefined : holder,
      ttlMs: holder === '' ? undefined : pttl,
      waiting,
      claimed: claimed === 1,
    };
  }

  async advance(_ms: number, lapses: Lapses): Promise<void> {
    for (const key of lapses.keys) await this.client.del(key);
    for (const key of lapses.claims) await this.client.del(claimMarkOf(key));
    for (const { key, token } of lapses.places) await this.client.zadd(waitingLineOf(key).lapses, 'XX', 0, token);
    for (const key of lapses.lines) {
      const { line, lapses: lapsesKey, leases } = waitingLineOf(key);
      await this.client.del(line, lapsesKey, leases);
    }
  }
}

/** Decides when a command of a store reaches the shared store, and what becomes of it (interleavings). */
export type CommandGate = <T>(label: string, kind: CommandKind, apply: () => Promise<T>) => Promise<T>;
export type CommandKind = 'attempt' | 'leave' | 'other';

/**
 * One process's connection to a MemoryLockStore shared by several "processes": each has its own
 * LockStore object (so its own waiters, take-overs and hand-overs), and every command goes through
 * `gate` — in the order the process sent it, as on one Redis connection — which picks when it is
 * applied and whether its reply is lost. Notices reach the processes Redis would tell (NoticeHub).
 */
export class ProcessStore implements LockStore {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly shared: MemoryLockStore,
    private readonly hub: NoticeHub,
    private readonly gate: CommandGate,
  ) {}

  tryAcquire(key: string, token: string, leaseMs: number, fenced?: boolean) {
    this.hub.owns(token, this);
    return this.send(`tryAcquire ${key} ${token}`, 'attempt', () =>
      this.shared.tryAcquire(key, token, leaseMs, fenced),
    );
  }

  tryAcquireInTurn(key: string, waiter: PlaceInLine, staleClaim?: string) {
    this.hub.owns(waiter.token, this);
    return this.send(`tryAcquireInTurn ${key} ${waiter.token}`, 'attempt', () =>
      this.shared.tryAcquireInTurn(key, waiter, staleClaim),
    );
  }

  renew(key: string, token: string, leaseMs: number) {
    return this.send(`renew ${key} ${token}`, 'other', () => this.shared.renew(key, token, leaseMs));
  }

  takeOver(key: string, token: string, leaseMs: number, waiterToken: string) {
    return this.send(`takeOver ${key} ${token} by ${waiterToken}`, 'other', () =>
      this.shared.takeOver(key, token, leaseMs, waiterToken),
    );
  }

  release(key: string, token: string, succession?: SuccessionRequest) {
    return this.send(`release ${key} ${token}`, 'other', () => this.shared.release(key, token, succession));
  }

  leave(key: string, token: string) {
    return this.send(`leave ${key} ${token}`, 'leave', () => this.shared.leave(key, token));
  }

  listen(key: string, notice: Notice): Promise<void> {
    this.hub.listen(key, this, notice);
    return Promise.resolve();
  }

  unlisten(key: string): void {
    this.hub.unlisten(key, this);
  }

  async close(): Promise<void> {}

  private send<T>(label: string, kind: CommandKind, apply: () => Promise<T>): Promise<T> {
    const sent = this.tail.then(() => this.gate(label, kind, apply));
    this.tail = sent.catch(() => undefined);
    return sent;
  }
}

/**
 * The shared store's notices, to the processes listening that Redis would tell (MemoryLockStore
 * keeps one listener a key; runtime/store/release-channel.ts): a key freed, to every one; passed,
 * to the process of the token it names (passOf: a binding pass's too) and to that of the first in
 * line now, who watches the claim. A token's process is the one that sent it.
 */
export class NoticeHub {
  private readonly listeners = new Map<string, Map<object, Notice>>();
  private readonly owners = new Map<string, object>();

  constructor(private readonly shared: MemoryLockStore) {}

  owns(token: string, process: object): void {
    this.owners.set(token, process);
  }

  listen(key: string, process: object, notice: Notice): void {
    let of = this.listeners.get(key);
    if (!of) {
      this.listeners.set(key, (of = new Map()));
      void this.shared.listen(key, (k, passedTo) => {
        const listening = this.listeners.get(k);
        if (!listening) return;
        const told = new Set(
          passedTo === undefined
            ? listening.keys()
            : [passOf(passedTo).token, this.shared.waiting(k)[0]].map((token) => token && this.owners.get(token)),
        );
        for (const [process, listener] of [...listening]) if (told.has(process)) listener(k, passedTo);
      });
    }
    of.set(process, notice);
  }

  unlisten(key: string, process: object): void {
    const of = this.listeners.get(key);
    of?.delete(process);
    if (of?.size === 0) {
      this.listeners.delete(key);
      this.shared.unlisten(key);
    }
  }
}

/** The tokens a shared store still has at `key`, holder first, and a claim's mark (no key left behind: none). */
export function leftBehind(shared: MemoryLockStore, key: string): string[] {
  const holder = shared.holder(key);
  const mark = shared.claimOf(key);
  return [
    ...(holder === undefined ? [] : [holder]),
    ...shared.waiting(key),
    ...(mark === undefined ? [] : [`claim ${mark}`]),
  ];
}

/** A real Redis's leftovers of `key`: the lock key, its line's keys, a claim's mark (no key left behind: none). */
export async function leftOnRedis(client: Redis, key: string): Promise<string | undefined> {
  const { line, lapses, leases } = waitingLineOf(key);
  const [holder, waiting, lapsing, marked] = await Promise.all([
    client.get(key),
    client.zrange(line, 0, -1),
    client.exists(lapses, leases),
    client.exists(claimMarkOf(key)),
  ]);
  return holder === null && waiting.length === 0 && lapsing === 0 && marked === 0
    ? undefined
    : `${key}: held by ${holder ?? 'nobody'}, waiting ${JSON.stringify(waiting)}`;
}
