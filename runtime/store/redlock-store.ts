// Redlock: one lock over N independent Redis primaries (N ≥ 3), held while a majority holds it.
//
// Each primary is an ordinary single-node store (redis-store.ts, node-redis-store.ts) that knows
// nothing of the others. A caller's attempt goes to every node at once with one token; the lock is
// its own when a majority took it within the validity — the lease, less the time the attempt took,
// less the clocks' drift (1% of the lease + 2 ms, as in the Redlock paper). A failed attempt undoes
// its partial grants at once, token-checked, so a split vote never leaves a key held by nobody's
// lock. Release goes to every node, renewal needs a majority, and a lock is lost when a majority no
// longer holds it.
//
// A node that is down answers at once (its health refuses the command); one that is paused never
// answers. Neither holds a caller: every verb settles as soon as its outcome is decided (a majority
// said yes, or a majority can no longer say yes) or when a node's command bound has passed, so a
// minority down or paused costs nothing and a majority down fails each attempt within the bound.
//
// Waiting: the single node's line of waiters (scripts/acquire-in-turn.ts) is not used. Lines on N nodes,
// each with its own first waiter, could split the votes for ever; instead every attempt is a
// plain quorum attempt, every release a compare-and-delete that announces the free key on each
// node, and this process's waiters wake on a notice from any node. Fairness across processes is
// therefore not promised on Redlock (README, Limits); within a process, waiters still go in turn.
//
// One release announces the key on every node: N notices. Passed on as they come, they would wake
// N waiters of this process to race each other (and split the votes). So a notice wakes a waiter
// only when nobody here is trying for the key or releasing it; one that comes meanwhile is noted,
// and an attempt that fails after such a notice passes one on — the key may be free now.
//
// Across processes a release wakes a waiter in each, and their attempts race. Sent to every node
// at once they split the votes (each wins some nodes, none a majority: all undo, pause at random and
// try again), which cost four processes on one key most of their throughput. So a waiter's attempt
// after a notice goes through a gate: the first node first, the others once it has granted. Only
// one caller gets through the gate, and it then meets no rival on the other nodes but a newcomer's
// first attempt (sent to all at once, as the uncontended path must be). The gate holds no one up
// for long: a first node that refuses ends the attempt (someone is through, or holds the key), one
// that errs or is slower than GATE_MS lets the attempt go to the others at once (its answer still
// counts), and a waiter the gate refused asks every node at once at its next attempt when no
// notice came meanwhile — a grant left on the first node alone (a caller that died mid-attempt)
// bars the gate, not the majority.
//
// Turns. The gate lets one process through, but which one is a race: every waiting process's
// waiter heard the release at about the same moment — the releasing process's own too, woken by
// its lease (lock/succession.ts names it). A process that wants the key thus waited a geometric
// number of the others' turns, and with 4 processes the slowest hundredth waited ~16 turns of up
// to MAX_COHORT sections each. So a release that ends this process's turn (its cohort is full: the
// successor it names may not go ahead) asks each node how many processes heard the free key
// announced — the PUBLISH's count of subscribers, this process's one among them — and when another
// listens, this process's waiters make no attempt for YIELD_MS (or the release's round trip, if
// longer): the others' waiters, woken by the notice, come to the gate first, and the race for the
// next turn is among the processes that did not just have one. A key nobody else takes (a process
// whose subscription lingers with no waiter behind it) is this process's again after the yield.
//
// A server counts once. One redis-server can be named under several addresses (127.0.0.1,
// localhost, ::1, a forwarded port), which configure() cannot tell apart by their spelling; each
// would vote, and one server would make the majority alone. So each node is asked which server it
// is (LockStore.serverId: the run_id, new at each start of a server process), and a node's answers
// count only once that is known: two nodes found to be one server make every verb fail (fatal: the
// configuration is wrong, trying again cannot help). The first verb asks every node at once and
// waits as a vote waits — until a majority answered, or the node bound — so a minority down or
// paused costs nothing here either; a node that did not answer is asked again in the background
// (at most once per node bound) and does not count until it has, nor after its connection was lost
// and made again (its server may have restarted as another's twin) until it has answered again.
// Once every node is known, an attempt costs what it did: no command, no await.
import { FencingUnavailableError, isFatal, RedisConnectionError } from '../base/errors';
import type { KeyState, LockStore, Notice, PlaceInLine, Regranted, Released, SuccessionRequest } from './lock-store';
import { setTimer } from '../base/timer-delay';

/**
 * What each node's release asks for: the free key announced though nobody stands in its line — on
 * Redlock nobody does (above), and the notices are how waiters here and elsewhere learn of it.
 */
const ANNOUNCED: SuccessionRequest = { announceFree: true };

/** The longest a verb waits for a node that does not answer (a paused node, a client without timeouts). */
export const REDLOCK_NODE_BOUND_MS = 1_000;

/** The longest random pause before callers that split a vote try again. */
const SPLIT_PAUSE_MS = 25;

/** How long a waiter's attempt waits for the first node (the gate) before it asks the others too. */
const GATE_MS = 50;

/**
 * How long, at least, this process's waiters make no attempt after its turn at a key ended while
 * other processes listened for it (Turns, above): long enough for a waiter elsewhere, woken by the
 * notice, to reach the gate on a busy 2-core machine; short against a turn. Where the release's own
 * round trip took longer (a network between the hosts), that long, up to GATE_MS: the others' notice
 * and their attempt travel as far.
 */
export const YIELD_MS = 3;

/**
 * Fencing numbers come from one server's counter, increased with the grant in one script; the
 * counters of independent servers have no order between them that a majority could keep. Fatal:
 * trying again cannot help. (Options refuse `redlock` with `fencing` before it gets here.)
 */
function noFencing(key: string): FencingUnavailableError {
  return new FencingUnavailableError(
    'lockweave: fencing is not offered on Redlock (independent servers keep no common counter)',
    key,
  );
}

export interface RedlockNode {
  readonly store: LockStore;
  /** Where it is, for errors: `127.0.0.1:6379`. */
  readonly address: string;
}

/** A key this process listens for: where its notices go, how many came, and who here is busy with it. */
interface Listener {
  readonly notice: Notice;
  heard: number;
  /** Attempts and releases of this process in flight for the key. */
  busy: number;
}

/**
 * What an attempt came to: the key is ours; another caller holds a majority; the gate's node refused
 * (another caller is through it, or holds the key); nobody does (a split vote, or a majority too late).
 */
type Outcome = 'took' | 'held' | 'gate-refused' | 'split' | 'unreachable';

/** A node's answer does not count until its server is known (see the top of this file). */
const NOT_IDENTIFIED = 'not yet known to be a server of its own (it has not answered INFO since it connected)';

/** What one node said, or undefined while it has not. */
type Answer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown } | undefined;

export class RedlockStore implements LockStore {
  /** How many nodes make a majority: floor(N/2) + 1. */
  readonly quorum: number;
  private readonly listeners = new Map<string, Listener>();
  /** Per token, per node: its last command there, which the next one waits for (see inTurn). */
  private readonly turns = new Map<string, Array<Promise<void> | undefined>>();
  /** Per waiter's token the gate refused: how many notices its key had had then (see gates). */
  private readonly refusedAtGate = new Map<string, number>();
  /** Per key: this process's waiters make no attempt until then (Turns, above). */
  private readonly yieldingUntil = new Map<string, number>();
  /** The gate is skipped until then: its node was slower than GATE_MS (paused, or far). */
  private gateSkippedUntil = 0;
  /**
   * Per node, the server it is once known: `run_id:…`, or `address:host:port` for a server that will
   * not say (and a store without serverId), which is told apart from the others by its address only.
   */
  private readonly servers: Array<string | undefined>;
  /** How many nodes' servers are not known. */
  private unknown: number;
  /** Per node: its serverId() is out. */
  private readonly asking: boolean[];
  /** Per node: not asked again before then (its last ask failed). */
  private readonly askAgainAt: number[];
  /** Per node: stops watching its reconnects. */
  private readonly unwatch: Array<() => void> = [];
  /** The first round of asking: verbs wait for it while it is undecided (see identified). */
  private firstRound: Promise<void> | undefined;
  private firstRoundDone = false;
  /** Told when a node's ask settles (the first round's decision). */
  private onAnswered: (() => void) | undefined;
  /** Two nodes are one server: every verb fails with this. */
  private sameServer: RedisConnectionError | undefined;

  constructor(
    private readonly nodes: readonly RedlockNode[],
    private readonly nodeBoundMs = REDLOCK_NODE_BOUND_MS,
  ) {
    if (nodes.length < 3)
      throw new TypeError(`lockweave: Redlock needs at least 3 independent Redis servers, got ${nodes.length}`);
    this.quorum = Math.floor(nodes.length / 2) + 1;
    this.servers = nodes.map(({ store, address }) => (store.serverId ? undefined : `address:${address}`));
    this.unknown = this.servers.filter((server) => server === undefined).length;
    this.asking = nodes.map(() => false);
    this.askAgainAt = nodes.map(() => 0);
    nodes.forEach(({ store }, index) => {
      if (store.serverId && store.onceReconnected) this.watchReconnects(index);
    });
  }

  /** The clocks' drift over one lease, by which a grant lasts less than the lease (the Redlock paper's). */
  clockDriftMs(leaseMs: number): number {
    return Math.floor(leaseMs / 100) + 2;
  }

  tryAcquire(key: string, token: string, leaseMs: number, fenced?: boolean): Promise<boolean> {
    if (fenced) return Promise.reject(noFencing(key));
    return this.attempt(key, token, leaseMs);
  }

  /** No line to stand in (see above): every attempt is a quorum attempt with the waiter's one token, through the gate. */
  tryAcquireInTurn(key: string, waiter: PlaceInLine): Promise<boolean> {
    if (waiter.fenced) return Promise.reject(noFencing(key));
    return this.attempt(key, waiter.token, waiter.leaseMs, true);
  }

  /**
   * Extends the key on every server that holds our token, and sets it again on every server where it
   * is absent (LockStore.regrant): a server restarted empty, or failed over to a replica that missed
   * the grant, holds the lease again after the next renewal. Without that a rolling restart — one
   * server after another, never a majority down at once — empties a majority of them in turn, and
   * the lease is lost though no majority was ever lost; node-redlock and redis-semaphore set the key
   * again in their refresh for the same reason. A server where another's token stands is never touched.
   *
   * Only the servers that still held our token count towards the majority. A re-grant restores a
   * server for the renewals to come; it proves nothing about the time since the key was lost there —
   * had a majority lost it, another caller could have taken and released it meanwhile, and the lease
   * is lost (and its re-grants are undone, as a failed attempt's grants are).
   */
  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const identifying = this.identified();
    if (identifying) await identifying;
    const startedAt = Date.now();
    const validMs = leaseMs - this.clockDriftMs(leaseMs);
    const renew = (node: LockStore, index: number) =>
      this.inTurn(token, index, () => regrantOn(node, key, token, leaseMs)).then((outcome) => outcome === 'renewed');
    const { verdict, answers } = await this.vote(renew, Math.min(this.nodeBoundMs, validMs));
    if (this.sameServer) throw this.sameServer;
    if (verdict === 'no') {
      this.undo(
        key,
        token,
        answers.map((answer) => answer?.ok === true && answer.value),
      );
      return false;
    }
    if (verdict === 'unreachable') throw this.unreachable('renew', key, answers);
    // A majority that came after the validity extended nothing we can count on.
    return Date.now() - startedAt < validMs;
  }

  /** The grant stays the holder's token on a majority: renewed there for the new holder (no line to leave). */
  takeOver(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.renew(key, token, leaseMs);
  }

  /**
   * Compare-and-delete on every node (each announces the free key). `freed` once a majority freed
   * it; `not-ours` when so many did not hold our token that it cannot have been held; else it throws,
   * and the lease sends the release again (it is token-checked).
   */
  async release(key: string, token: string, succession?: SuccessionRequest): Promise<Released> {
    if (this.sameServer) {
      // A grant made before the twins were found goes now, not at its TTL (token-checked: only ours).
      this.nodes.forEach(({ store }, index) =>
        this.inTurn(token, index, () => store.release(key, token, ANNOUNCED)).catch(() => undefined),
      );
      throw this.sameServer;
    }
    const identifying = this.identified();
    if (identifying) await identifying;
    // This process's turn ends (Turns, above): does another process listen for the key?
    let othersListen = false;
    const ownListeners = this.listeners.has(key) ? 1 : 0;
    const endsTurn = succession?.successor !== undefined && succession.goesAhead !== true;
    const sentAt = Date.now();
    const request: SuccessionRequest = endsTurn
      ? { announceFree: true, onAnnounced: (heardBy) => (othersListen ||= heardBy > ownListeners) }
      : ANNOUNCED;
    // Its own notices wake nobody here: the lease wakes its successor itself when the key is freed.
    const { verdict, answers } = await this.busyWith(key, () =>
      this.vote(
        (node, index) =>
          this.inTurn(token, index, () => node.release(key, token, request)).then(
            (released) => released !== 'not-ours',
          ),
        this.nodeBoundMs,
      ),
    );
    if (verdict === 'yes') {
      if (othersListen) {
        const now = Date.now();
        this.yieldingUntil.set(key, now + Math.min(Math.max(YIELD_MS, now - sentAt), GATE_MS));
      }
      return 'freed';
    }
    if (verdict === 'no') return 'not-ours';
    throw this.unreachable('release', key, answers);
  }

  async leave(key: string, token: string): Promise<Released> {
    this.refusedAtGate.delete(token);
    return this.release(key, token).catch(() => 'not-ours' as const);
  }

  /**
   * The key as a majority sees it: held when a majority of the servers hold it, for as long as the
   * majority's shortest TTL (then fewer than a majority do). No line (waiters undefined), no fencing.
   * A key held on fewer than a majority is free to a new caller: not held.
   */
  async inspect(key: string): Promise<KeyState> {
    const identifying = this.identified();
    if (identifying) await identifying;
    const settled = await Promise.allSettled(
      this.nodes.map(({ store }, index) =>
        !store.inspect
          ? Promise.reject(new TypeError('this server cannot be inspected'))
          : this.servers[index] === undefined
            ? Promise.reject(new Error(NOT_IDENTIFIED))
            : store.inspect(key),
      ),
    );
    if (this.sameServer) throw this.sameServer;
    const answers: Answer<boolean>[] = settled.map((answer) =>
      answer.status === 'fulfilled' ? { ok: true, value: true } : { ok: false, error: answer.reason },
    );
    const states = settled.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
    if (states.length < this.quorum) throw this.unreachable('inspect', key, answers);
    const ttls = states
      .filter((state) => state.held)
      .map((state) => state.ttlMs ?? Number.POSITIVE_INFINITY)
      .sort((a, b) => b - a);
    const held = ttls.length >= this.quorum;
    const ttlMs = held ? ttls[this.quorum - 1] : undefined;
    return {
      held,
      ttlMs: ttlMs === Number.POSITIVE_INFINITY ? undefined : ttlMs,
      waiters: undefined,
      fence: undefined,
    };
  }

  /** Resolves once a majority delivers the key's notices: a release reaches a majority, so at least one of them. */
  async listen(key: string, notice: Notice): Promise<void> {
    let listener = this.listeners.get(key);
    if (!listener) this.listeners.set(key, (listener = { notice, heard: 0, busy: 0 }));
    const heard = (_key: string, _passedTo: string | undefined, missed?: boolean) => {
      if (this.listeners.get(key) !== listener) return;
      listener.heard++;
      if (listener.busy === 0) notice(key, undefined, missed);
    };
    const identifying = this.identified();
    if (identifying) await identifying;
    const { verdict, answers } = await this.vote((node) => node.listen(key, heard).then(() => true), this.nodeBoundMs);
    if (this.sameServer) throw this.sameServer;
    if (verdict !== 'yes') throw this.unreachable('listen', key, answers);
  }

  unlisten(key: string): void {
    this.listeners.delete(key);
    this.yieldingUntil.delete(key);
    for (const { store } of this.nodes) store.unlisten(key);
  }

  /** The first node back calls `listener`: a release that could not reach a majority may now. */
  onceReconnected(listener: () => void): () => void {
    const cancels: Array<() => void> = [];
    const cancel = () => cancels.splice(0).forEach((stop) => stop());
    for (const { store } of this.nodes) {
      const stop = store.onceReconnected?.(() => {
        cancel();
        listener();
      });
      if (stop) cancels.push(stop);
    }
    return cancel;
  }

  async close(): Promise<void> {
    for (const stop of this.unwatch.splice(0)) stop?.();
    await Promise.all(this.nodes.map(({ store }) => store.close().catch(() => undefined)));
  }

  private async attempt(key: string, token: string, leaseMs: number, waits = false): Promise<boolean> {
    const yielding = waits ? this.yielding(key) : undefined;
    if (yielding) await yielding;
    // Read after the yield: the notices of this process's own release, heard meanwhile, are no news.
    const listener = this.listeners.get(key);
    const heardBefore = listener?.heard;
    const gated = waits && this.gates(token, heardBefore);
    let outcome: Outcome = 'unreachable';
    try {
      outcome = await this.busyWith(key, () => this.attemptOnAll(key, token, leaseMs, gated));
      return outcome === 'took';
    } finally {
      if (outcome === 'gate-refused') this.refusedAtGate.set(token, heardBefore!);
      else this.refusedAtGate.delete(token);
      // Someone here tries again — once this caller is back asleep (it may be the only one here),
      // hence a timer — when the key may be free now: a notice came that nobody here was woken for,
      // or the votes split (nobody has the key; each of the callers that split it retries after a
      // random pause, as the Redlock paper has it, so that one of them comes first).
      const split = outcome === 'split';
      if (listener && (split || (outcome !== 'took' && listener.heard !== heardBefore))) {
        const wake = () =>
          this.listeners.get(key) === listener && listener.busy === 0 && listener.notice(key, undefined);
        if (split) setTimer(wake, Math.random() * SPLIT_PAUSE_MS).unref();
        else setImmediate(wake);
      }
    }
  }

  /** Resolves when this process's waiters may try for `key` again (Turns, above); undefined when they may now. */
  private yielding(key: string): Promise<void> | undefined {
    const until = this.yieldingUntil.get(key);
    if (until === undefined) return undefined;
    const leftMs = until - Date.now();
    const over = () => this.yieldingUntil.get(key) === until && this.yieldingUntil.delete(key);
    if (leftMs > 0) return new Promise((resolve) => setTimer(() => resolve(void over()), leftMs));
    over();
    return undefined;
  }

  /**
   * Runs a token's command on node `index` once its earlier commands there have been answered.
   * Commands on one connection run in order, but a script's first run is two commands (EVALSHA,
   * then EVAL when the server has not loaded it: at first use, and after a restart), and an
   * attempt's renew goes after its SET's answer: without this, a failed attempt's undo could land
   * after the next attempt's grant of the same token, and take it away behind its back.
   */
  private inTurn<T>(token: string, index: number, command: () => Promise<T>): Promise<T> {
    let turns = this.turns.get(token);
    if (!turns) this.turns.set(token, (turns = new Array(this.nodes.length).fill(undefined)));
    const previous = turns[index];
    const run = previous ? previous.then(command, command) : command();
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    turns[index] = done;
    void done.then(() => {
      const now = this.turns.get(token);
      if (now?.[index] !== done) return;
      now[index] = undefined;
      if (now.every((turn) => turn === undefined)) this.turns.delete(token);
    });
    return run;
  }

  private async busyWith<T>(key: string, work: () => Promise<T>): Promise<T> {
    const listener = this.listeners.get(key);
    if (listener) listener.busy++;
    try {
      return await work();
    } finally {
      if (listener) listener.busy--;
    }
  }

  /**
   * Whether a waiter's attempt goes through the gate: when this process listens for the key (its
   * waiters hear releases), the gate's node has not been slow lately, and the gate did not refuse
   * this waiter since the key's last notice (`heard`) — else the key may be held on the gate's node
   * alone, by nobody's lock, and only asking every node finds it free.
   */
  private gates(token: string, heard: number | undefined): boolean {
    return heard !== undefined && Date.now() >= this.gateSkippedUntil && this.refusedAtGate.get(token) !== heard;
  }

  private async attemptOnAll(key: string, token: string, leaseMs: number, gated: boolean): Promise<Outcome> {
    const identifying = this.identified();
    if (identifying) await identifying;
    const startedAt = Date.now();
    const validMs = leaseMs - this.clockDriftMs(leaseMs);
    let undone = false;
    // A node where the key holds our token already counts as granted: an earlier attempt of this
    // caller set it, and its answer or its undo was lost. The renew makes that grant this attempt's.
    const take = (node: LockStore, index: number) =>
      this.inTurn(token, index, () =>
        node
          .tryAcquire(key, token, leaseMs)
          .then((took) => took === true || (!undone && node.renew(key, token, leaseMs))),
      );
    // Through the gate (see the top of this file): the first node alone, then the others.
    let atGate: Promise<boolean> | undefined;
    if (gated) {
      atGate = take(this.nodes[0]!.store, 0);
      const answer = await settledWithin(atGate, GATE_MS);
      if (answer === false) return 'gate-refused';
      if (answer === undefined) this.gateSkippedUntil = Date.now() + this.nodeBoundMs;
    }
    const ask = (node: LockStore, index: number) => (index === 0 && atGate ? atGate : take(node, index));
    const { verdict, answers } = await this.vote(ask, Math.min(this.nodeBoundMs, validMs));
    if (verdict === 'yes' && Date.now() - startedAt < validMs) return 'took';
    // Undo the partial grants, and any a node that has not answered may still make: the undo
    // follows the SET on the same connection. Not awaited: the caller's failure is not delayed by it.
    // Silent — the key expires in a millisecond, token-checked — rather than a release that
    // announces it: a notice would wake a waiter (this one, too) to try, fail and undo again, over
    // and over, while another caller holds the key or the servers are down. Who needs to hear
    // instead: the callers that split a vote know it and try again; a holder's release announces.
    undone = true;
    this.undo(
      key,
      token,
      answers.map((answer) => answer?.ok === true && answer.value === false),
    );
    if (this.sameServer) throw this.sameServer;
    if (verdict === 'unreachable') throw this.unreachable('acquire', key, answers);
    const othersHold = answers.filter((answer) => answer?.ok && answer.value === false).length >= this.quorum;
    return othersHold ? 'held' : 'split';
  }

  /**
   * Lets our token's key expire in a millisecond on every node but those `spared` (token-checked,
   * after the token's earlier commands there). Not awaited, silent: see attemptOnAll.
   */
  private undo(key: string, token: string, spared: readonly boolean[]): void {
    this.nodes.forEach(({ store }, index) => {
      if (!spared[index]) this.inTurn(token, index, () => store.renew(key, token, 1)).catch(() => undefined);
    });
  }

  /**
   * Asks every node at once. `yes` when a majority answered true, `no` when enough answered false
   * that a majority cannot, else `unreachable` (errors or silence stood in the way) — decided as
   * soon as it is decided, or after `withinMs` with whatever has answered by then.
   */
  private vote(
    ask: (node: LockStore, index: number) => Promise<boolean>,
    withinMs: number,
  ): Promise<{ verdict: 'yes' | 'no' | 'unreachable'; answers: Answer<boolean>[] }> {
    const n = this.nodes.length;
    const answers: Answer<boolean>[] = new Array(n).fill(undefined);
    return new Promise((resolve) => {
      let done = false;
      const decide = (final: boolean) => {
        if (done) return;
        const counted = this.counted(answers);
        let yes = 0;
        let no = 0;
        let silent = 0;
        for (const answer of counted) {
          if (answer === undefined) silent++;
          else if (answer.ok && answer.value) yes++;
          else if (answer.ok) no++;
        }
        const verdict =
          yes >= this.quorum
            ? 'yes'
            : no > n - this.quorum
              ? 'no'
              : yes + silent < this.quorum || final
                ? 'unreachable'
                : undefined;
        if (!verdict) return;
        done = true;
        clearTimeout(timer);
        resolve({ verdict, answers: counted === answers ? [...answers] : counted });
      };
      const timer = setTimer(() => decide(true), withinMs);
      timer.unref();
      this.nodes.forEach(({ store }, index) => {
        let asked: Promise<boolean>;
        try {
          asked = ask(store, index);
        } catch (error) {
          asked = Promise.reject(error);
        }
        asked
          .then(
            (value) => (answers[index] = { ok: true, value }),
            (error: unknown) => (answers[index] = { ok: false, error }),
          )
          .then(() => decide(answers.every((answer) => answer !== undefined)));
      });
    });
  }

  /**
   * The answers as they count towards a majority: a node's only once its server is known, and
   * none once two nodes turned out to be one server (the verb then fails: see attemptOnAll).
   * The answers themselves when every node is known (the usual case: nothing to copy).
   */
  private counted(answers: Answer<boolean>[]): Answer<boolean>[] {
    if (this.unknown === 0 && !this.sameServer) return answers;
    return answers.map((answer, index) =>
      answer?.ok && (this.sameServer || this.servers[index] === undefined)
        ? { ok: false, error: this.sameServer ?? new Error(NOT_IDENTIFIED) }
        : answer,
    );
  }

  /**
   * Undefined when a verb may go on at once: every node's server is known (the usual case). Else
   * asks the nodes not known (one whose last ask failed, once the node bound has passed), and
   * returns the first round of asking while it is undecided; rejects once two nodes are one server.
   */
  private identified(): Promise<void> | undefined {
    if (this.sameServer) return Promise.reject(this.sameServer);
    if (this.unknown === 0) return undefined;
    const now = Date.now();
    this.nodes.forEach((_, index) => {
      if (this.servers[index] === undefined && now >= this.askAgainAt[index]!) this.ask(index);
    });
    this.firstRound ??= this.firstRoundDecided();
    if (this.firstRoundDone) return undefined;
    // Twins found in the first round are refused before any command is sent.
    return this.firstRound.then(() => {
      if (this.sameServer) throw this.sameServer;
    });
  }

  /**
   * Resolves as a vote is decided: once a majority of the nodes are known (or two are one server),
   * once a majority can no longer be (the attempt then fails as a vote without a majority does),
   * or after the node bound — a paused node holds no one up longer than its vote would.
   */
  private firstRoundDecided(): Promise<void> {
    return new Promise((resolve) => {
      const decide = (final: boolean) => {
        const known = this.nodes.length - this.unknown;
        const asking = this.asking.filter(Boolean).length;
        if (!final && !this.sameServer && known < this.quorum && known + asking >= this.quorum) return;
        clearTimeout(timer);
        this.onAnswered = undefined;
        this.firstRoundDone = true;
        resolve();
      };
      const timer = setTimer(() => decide(true), this.nodeBoundMs);
      timer.unref();
      this.onAnswered = () => decide(false);
      decide(false);
    });
  }

  /** Asks node `index` which server it is, unless that is out already. Not awaited: see identified. */
  private ask(index: number): void {
    if (this.asking[index]) return;
    this.asking[index] = true;
    const { store, address } = this.nodes[index]!;
    const settled = (server: string | undefined) => {
      this.asking[index] = false;
      if (server === undefined) this.askAgainAt[index] = Date.now() + this.nodeBoundMs;
      else this.learn(index, server);
      this.onAnswered?.();
    };
    store.serverId!().then(
      (runId) => settled(runId === undefined ? `address:${address}` : `run_id:${runId}`),
      () => settled(undefined),
    );
  }

  /** Node `index` is `server`; when another node is too, both are one server, and every verb fails from now on. */
  private learn(index: number, server: string): void {
    if (this.servers[index] !== undefined) return;
    this.servers[index] = server;
    this.unknown--;
    const twin = this.servers.findIndex((other, at) => at !== index && other === server);
    if (twin !== -1) this.sameServer ??= this.twins(Math.min(twin, index), Math.max(twin, index), server);
  }

  /**
   * A node whose connection was lost and made again may reach another server process now (a restart,
   * a failover, an address that points elsewhere): it does not count until it has said which. (An
   * ask out at that moment was either answered on the old connection already, before it closed, or
   * goes out on the new one.)
   */
  private watchReconnects(index: number): void {
    this.unwatch[index] = this.nodes[index]!.store.onceReconnected!(() => {
      if (this.servers[index] !== undefined) {
        this.servers[index] = undefined;
        this.unknown++;
      }
      this.askAgainAt[index] = 0;
      this.ask(index);
      this.watchReconnects(index);
    });
  }

  /** The fatal error of two nodes that are one server, naming both (the run_id only by its start). */
  private twins(first: number, second: number, server: string): RedisConnectionError {
    const a = this.nodes[first]!.address;
    const b = this.nodes[second]!.address;
    const runId = server.startsWith('run_id:')
      ? ` (run_id ${server.slice('run_id:'.length, 'run_id:'.length + 8)}…)`
      : '';
    return new RedisConnectionError(
      `Redlock: server ${first} (${a}) and server ${second} (${b}) are the same Redis server${runId}: Redlock's servers must be independent`,
      `${a},${b}`,
      true,
    );
  }

  /** Why a majority could not answer, naming the nodes that did not and what they said. */
  private unreachable(verb: string, key: string, answers: readonly Answer<boolean>[]): RedisConnectionError {
    const problems: string[] = [];
    let fatal = 0;
    let firstError: unknown;
    this.nodes.forEach(({ address }, index) => {
      const answer = answers[index];
      if (answer?.ok) return;
      if (answer === undefined) return problems.push(`${address}: no answer yet`);
      firstError ??= answer.error;
      if (isFatal(answer.error)) fatal++;
      problems.push(`${address}: ${(answer.error as Error)?.message ?? String(answer.error)}`);
    });
    // Fatal only when the fatal nodes alone keep a majority out of reach: retrying cannot help then.
    return new RedisConnectionError(
      `Redlock: no majority (${this.quorum} of ${this.nodes.length}) of the servers could ${verb} ${key}: ${problems.join('; ')}`,
      this.nodes.map(({ address }) => address).join(','),
      fatal > this.nodes.length - this.quorum,
      firstError === undefined ? undefined : { cause: firstError },
    );
  }
}

/** The promise's value if it settles within `ms`; undefined if it rejects or has not settled by then. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimer(() => resolve(undefined), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/** A server's renewal with re-grant; a store without one (no Redis server) only extends. */
function regrantOn(node: LockStore, key: string, token: string, leaseMs: number): Promise<Regranted> {
  if (node.regrant) return node.regrant(key, token, leaseMs);
  return node.renew(key, token, leaseMs).then((renewed) => (renewed ? 'renewed' : 'not-ours'));
}
