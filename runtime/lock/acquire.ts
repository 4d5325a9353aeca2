// Taking a lock: one attempt, then waits that end early when the key is freed or passed on.
//
// The schedule keeps the original Java lock's promise and improves on it. The original checked `retries` more
// times, `waitTime` apart, and gave up after retries × waitTime. We keep that deadline and
// those scheduled attempts, and add one attempt each time a notice says the key is free or ours
// — so a caller never waits for a holder that is already gone, and never gives up sooner than
// the original would have.
//
// A caller that has to wait takes a place in the key's line (see store/lock-store.ts): a release
// gives the key to the first in line, in whatever process, or to a waiter of its own process for
// at most a few successions in a row (see succession.ts) — so no caller is overtaken for long by
// callers that came later, and every caller gets the key within its wait bound while the section
// time allows it, however many processes come and go.
//
// An attempt that fails with an error (Redis unreachable, a timeout) counts as a failed
// attempt: the caller keeps trying until the deadline and then gets LockAcquireError with the
// last error as its cause — never a hang past the deadline, never the body run unlocked.
//
// The deadline is the caller's own, whatever else this process or Redis is busy with: its last
// scheduled attempt is made at startedAt + retries × waitTime, and the caller waits for that
// attempt's answer no longer than one more wait (see deadlineOf). An answer still queued then —
// behind thousands of other waiters' scripts, in a client's offline queue, on a server that
// stopped answering — is given up on: the caller fails at its deadline, and the attempt, should it
// land later, is undone by the token-checked leave() that failed() sends after it on the same
// connection (and sends again should it go unanswered, see leave below). Until it settles, the
// call holds the process up (base/process-hold.ts).
import { FencingUnavailableError, isFatal, LockAcquireError } from '../base/errors';
import type { OnFail } from '../base/options';
import { holdProcess } from '../base/process-hold';
import { setTimer } from '../base/timer-delay';
import { COMMAND_TIMEOUT_MS } from '../store/command-batch';
import type { LockLogger } from './events';
import type { LockLabel } from './observe';
import { Lease, type LeaseSettings, type StoreUse } from './lease';
import { replicaShortfall } from './replicas';
import { newToken } from './token';
import { CLAIM_MS, type Grant, type LockStore } from '../store/lock-store';
import { sendAgain } from './clean-up';
import { takesOverGrants } from './succession';
import { waitersOf, type Waiter } from './waiters';

export interface AcquireSettings extends LeaseSettings {
  readonly retries: number;
  readonly waitTime: number;
  /** Every grant carries a fencing token (see store/lock-store.ts, Grant). */
  readonly fencing?: boolean;
  readonly replicas: number;
}

/** A class named by `onFail=ClassName`: constructed with the failure message. */
export type FailureClass = new (message: string) => unknown;

export interface AcquireContext {
  readonly store: LockStore;
  readonly logger: LockLogger | undefined;
  /** The woven method, for log lines: `OrderService.pay`. */
  readonly site: string | undefined;
  /** What to do when every attempt fails. */
  readonly onFail: OnFail | FailureClass;
  /** Ended when this acquisition fails, else by its lease when the lease is done with the store. */
  readonly use?: StoreUse;
  /** The caller's: an abort ends the wait at once (see abortable). */
  readonly signal?: AbortSignal;
  /** Which lock this is, for the lease's traces (observe.ts). */
  readonly label?: LockLabel;
}

/**
 * How long a waiter's place in line lasts past its next scheduled attempt: its attempts come at
 * most `waitTime` apart, and this covers a slow round trip or a busy event loop. A place that
 * lapses is taken again, the same place, at the waiter's next attempt.
 */
const PLACE_GRACE_MS = 2_000;

function placeLastsMs(settings: AcquireSettings): number {
  return settings.waitTime + PLACE_GRACE_MS;
}

/** The longest a new waiter waits for release notices to start before it goes on without them. */
const LISTEN_WAIT_MS = 2_000;

/**
 * The least time a caller's last attempt is given for its answer, whatever its waitTime: a round
 * trip on a busy host (a GC pause, a loaded event loop) takes tens of milliseconds, and a caller
 * with `waitTime: 10` must not fail for want of an answer that was on its way.
 */
const MIN_ANSWER_WAIT_MS = 250;

/**
 * When the caller gives up: its last scheduled attempt is due at startedAt + retries × waitTime,
 * and its answer is waited for one more waitTime — at least MIN_ANSWER_WAIT_MS, at most the
 * store's command bound. With the default 3 × 5 s that is 17 s; with 1 × 300 ms, 600 ms. No answer
 * is waited for past it and no attempt sent after it, whatever the crowd: when answers come later
 * than the schedule (a store or host slower than one round trip per waitTime), the caller makes
 * fewer than retries + 1 attempts, and its error says how many.
 */
export function deadlineOf(startedAt: number, settings: Pick<AcquireSettings, 'retries' | 'waitTime'>): number {
  const answerWaitMs = Math.min(Math.max(settings.waitTime, MIN_ANSWER_WAIT_MS), COMMAND_TIMEOUT_MS);
  return startedAt + settings.retries * settings.waitTime + answerWaitMs;
}

interface Attempts {
  /** When the caller gives up (deadlineOf). */
  readonly deadline: number;
  count: number;
  lastError: unknown;
  /** The latest attempt failed with an error rather than finding the key held. */
  erred: boolean;
}

/**
 * Resolves with the lease; when every attempt fails, rejects with LockAcquireError (or the
 * onFail class), or resolves undefined for onFail=skip.
 */
export function acquireLease(
  key: string,
  settings: AcquireSettings,
  context: AcquireContext,
): Promise<Lease | undefined> {
  const { signal } = context;
  if (signal?.aborted) {
    context.use?.end();
    return Promise.reject(signal.reason);
  }
  // Both async: what goes wrong in them is a rejection, never a throw here. Not async itself, nor
  // a reaction on the acquisition here: on every lock either cost a promise and a turn of the
  // microtask queue more. acquire() holds the process up until it settles (holdProcess).
  return signal ? abortable(key, settings, context, signal) : acquire(key, settings, context);
}

/**
 * An acquisition the caller may abort: the abort rejects the caller at once with the signal's
 * reason — not a LockAcquireError, and no onFail applies: the caller asked to stop. The acquisition
 * itself stops too (waitForLease wakes and leaves the line, token-checked, as a caller past its
 * deadline does); an attempt already on its way that takes the key is given back when it answers.
 * An abort once the lease is the caller's changes nothing: the body decides what to do with it.
 * Listeners are removed on every path, so one long-lived signal serves any number of calls.
 */
async function abortable(
  key: string,
  settings: AcquireSettings,
  context: AcquireContext,
  signal: AbortSignal,
): Promise<Lease | undefined> {
  let onAbort!: () => void;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
  });
  signal.addEventListener('abort', onAbort, { once: true });
  const acquiring = acquire(key, settings, context);
  try {
    return await Promise.race([acquiring, aborted]);
  } catch (error) {
    // The caller is told no, whatever said it (the abort, or a signal-like object's own listener
    // called early): a key the acquisition still takes is given back, never stranded for its lease.
    acquiring.then(
      (lease) => lease?.release(),
      () => undefined, // gave up on the abort: its leave() is sent
    );
    throw error;
  } finally {
    try {
      signal.removeEventListener('abort', onAbort);
    } catch {
      // A signal-like object whose removal throws keeps a listener that settles nothing any more;
      // its failure must not turn a lease the caller holds into a rejection that strands the key.
    }
  }
}

async function acquire(key: string, settings: AcquireSettings, context: AcquireContext): Promise<Lease | undefined> {
  // Held up until it settles, before its caller goes on (an aborted caller's acquisition ends soon
  // after it): a finally here, not a reaction on its promise, costs no promise of its own.
  const letGo = holdProcess();
  try {
    const startedAt = Date.now();
    const deadline = deadlineOf(startedAt, settings);
    // One token for the whole acquisition: an attempt that timed out may still have set it, and the
    // next attempt then finds the key holding it — ours — instead of stranding it until its lease ends.
    const token = newToken();
    // Callers of this process already wait for the key: join them in line rather than barge in with
    // a SET that would almost surely fail (the key is held, or about to be passed to the line).
    // That first attempt is answered in process (the key is known held), so it counts as one: a
    // caller that never gets the key makes `retries + 1` attempts either way. So does a caller
    // whose process still hears the key's notices (store.hears: its last waiter here left a moment
    // ago): one caller a process on a contended key comes back to find it held nearly every time,
    // and its place in line, which takes the key if it is free and nobody is ahead, is then its
    // first attempt — one round trip, not a SET and then the place.
    const waiters = waitersOf(context.store);
    if (settings.retries > 0 && (waiters.has(key) || context.store.hears?.(key) === true)) {
      // While this process's turn at the key runs, a caller that can take the grant over takes no
      // place in the line either: the turn serves it, or wakes it to take one when it ends (waiters.ts).
      const takesPlace = !(
        waiters.turnRunsHere(key) &&
        takesOverGrants(settings) &&
        context.store.takeOver !== undefined
      );
      return await waitForLease(
        key,
        token,
        settings,
        context,
        startedAt,
        { deadline, count: 1, lastError: undefined, erred: false },
        takesPlace,
      );
    }
    // The uncontended path is this one attempt: keep it to a single await.
    let lastError: unknown;
    let leased: Lease | Promise<Lease | undefined> | undefined;
    try {
      const grant = await answered(
        context.store.tryAcquire(key, token, settings.lockTime, settings.fencing),
        context.store,
        deadline,
      );
      if (grant) {
        const lease = grantedLease(key, token, startedAt, fenceOf(grant, settings, key), settings, context);
        leased = granted(lease, 1, startedAt, settings, context);
      }
    } catch (error) {
      lastError = attemptErrored(error, key, token, context);
    }
    // Out of the attempt's try: a shortfall of replicas fails the call, not the attempt. Awaited
    // only when it is a promise (replicas to wait for): an await of the lease itself costs a turn.
    if (leased) return leased instanceof Lease ? leased : await leased;
    const attempts = { deadline, count: 1, lastError, erred: lastError !== undefined };
    if (settings.retries === 0 || isFatal(lastError) || Date.now() >= deadline)
      return failed(key, token, startedAt, attempts, settings, context, lastError !== undefined);
    return await waitForLease(key, token, settings, context, startedAt, attempts);
  } finally {
    letGo();
  }
}

async function waitForLease(
  key: string,
  token: string,
  settings: AcquireSettings,
  context: AcquireContext,
  startedAt: number,
  attempts: Attempts,
  takesPlace = true,
): Promise<Lease | undefined> {
  const { store, logger, site } = context;
  let waiter: Waiter;
  try {
    const listenWaitMs = Math.min(settings.waitTime, LISTEN_WAIT_MS);
    const waiterSettings = {
      leaseMs: settings.lockTime,
      placeLastsMs: placeLastsMs(settings),
      fenced: settings.fencing === true,
      takesOver: takesOverGrants(settings),
      startsOnPass: settings.fencing !== true && !(settings.replicas > 0) && !settings.minHold,
    };
    waiter = await waitersOf(store).add(key, token, waiterSettings, listenWaitMs);
  } catch (error) {
    context.use?.end();
    throw error;
  }
  let lease: Lease | undefined;
  // An abort wakes the waiter, whose loop then ends and gives up (failed() leaves the line).
  const wake = () => waiter.notify();
  context.signal?.addEventListener('abort', wake, { once: true });
  try {
    // A waiter that takes no place yet looks at once should its process's turn have ended while it
    // was added (the look came before it slept).
    let seen = takesPlace ? waiter.epoch : 0;
    // Take a place in line, listening first: a release between the first attempt and now either
    // freed the key (this finds it free, and takes it if nobody is ahead) or passed it to someone
    // already in line. Not an attempt of the schedule unless it takes the key: the SETs a caller
    // makes are the first, then `retries`, plus one per notice in between.
    //
    // A key passed to this waiter with a claim is confirmed by its next attempt, which makes the
    // lease its own, full length, before the body starts: a body never runs on a claim, which a
    // short Redis outage or a cut connection would end under it, or another waiter take — unless
    // the pass binds (store/lock-store.ts, BINDS_WITHIN_MS): the key is then the waiter's for its
    // lease, from after this first attempt, and its body starts on the notice (waiters.ts, passed).
    if (takesPlace) lease = await attemptInTurn(key, waiter, settings, context, attempts, false);
    // The scheduled attempts stand at fixed times, startedAt + k × waitTime for k = 1..retries (the
    // last one at the deadline), whatever the timers' drift; a notice in between adds an attempt.
    let scheduled = 0;
    while (
      !lease &&
      scheduled < settings.retries &&
      !isFatal(attempts.lastError) &&
      Date.now() < attempts.deadline &&
      !context.signal?.aborted
    ) {
      const dueAt = startedAt + (scheduled + 1) * settings.waitTime;
      const waitMs = dueAt - Date.now();
      if (waitMs > 0) {
        logger?.({
          type: 'waiting',
          key,
          attempt: attempts.count,
          waitMs,
          site,
          ...(attempts.erred ? { error: attempts.lastError as Error } : {}),
        });
        // An attempt that failed for want of Redis is made again the moment the connection is back
        // (a restart, a failover's promotion), not at the next scheduled attempt up to waitTime later;
        // even while a release here is in flight that may hand it the key (reserved): that release
        // may itself be waiting for the connection.
        const stopWaitingForReconnect = attempts.erred ? store.onceReconnected?.(() => waiter.look()) : undefined;
        await waiter.sleep(seen, waitMs);
        stopWaitingForReconnect?.();
      }
      // A holder of this process named this waiter its successor (succession.ts): the key is ours.
      const succeeded = waiter.takeSucceeded();
      if (succeeded) {
        attempts.count++;
        try {
          lease = succeeded.grant
            ? Lease.takeOver({
                key,
                grant: succeeded.grant,
                waiterToken: token,
                inLine: waiter.inLine,
                store,
                settings,
                logger,
                use: context.use,
                label: context.label,
              })
            : grantedLease(key, token, succeeded.sentAt, fenceOf(waiter.fence, settings, key), settings, context);
        } catch (error) {
          attempts.lastError = error; // a hand-over without the fencing token asked for: failed() gives the key back
        }
        break;
      }
      if (context.signal?.aborted) break; // no further attempt: the caller has gone
      const noticed = waiter.epoch !== seen;
      seen = waiter.epoch;
      const due = Date.now() >= dueAt;
      if (!noticed && !due) continue; // woken early (a clamped timer): not time yet
      if (due) scheduled++;
      // A look (a reconnect, a subscriber back: a notice may have been missed) is not an attempt of
      // the schedule unless it takes the key, like the look that takes the place in line: with no
      // release meanwhile, a caller that never gets the key makes retries + 1 attempts.
      lease = await attemptInTurn(key, waiter, settings, context, attempts, waiter.takeNoticed() || due);
    }
    if (!lease) return failed(key, token, startedAt, attempts, settings, context, true);
  } catch (error) {
    context.use?.end(); // idempotent: failed() may have ended it before throwing
    throw error;
  } finally {
    context.signal?.removeEventListener('abort', wake);
    waiter.close();
  }
  return granted(lease, attempts.count, startedAt, settings, context);
}

async function attemptInTurn(
  key: string,
  waiter: Waiter,
  settings: AcquireSettings,
  context: AcquireContext,
  attempts: Attempts,
  /** False for a look (the one that takes the place in line, one after a reconnect): it counts only when it takes the key. */
  counts: boolean,
): Promise<Lease | undefined> {
  if (Date.now() >= attempts.deadline) return undefined; // past the caller's deadline: not sent
  if (counts) attempts.count++;
  attempts.erred = false;
  const sentAt = Date.now();
  waiter.inLine = true;
  waiter.placedAt ??= sentAt;
  try {
    const attempt = context.store.tryAcquireInTurn(key, waiter, waiter.takeStaleClaim());
    if (await answered(attempt, context.store, attempts.deadline)) {
      if (!counts) attempts.count++;
      return grantedLease(key, waiter.token, sentAt, fenceOf(waiter.fence, settings, key), settings, context);
    }
  } catch (error) {
    attempts.lastError = attemptErrored(error, key, waiter.token, context);
    attempts.erred = true;
  }
  return undefined;
}

/**
 * The attempt's answer, or, when it has not come by `until`, the store's error for a server that
 * did not answer. The attempt is not undone here: failed() sends a token-checked leave() after
 * it, on the same connection.
 */
function answered<T>(attempt: Promise<T>, store: LockStore, until: number): Promise<T> {
  // The store's own bound settles the attempt well before `until`: a timer here would never fire,
  // and one set and cleared on every attempt (with its promise) was 7% of an uncontended section's CPU.
  if (store.settlesWithin?.(until - Date.now())) return attempt;
  return new Promise((resolve, reject) => {
    // 0 when the bound passed while the attempt was sent (a paused process), never less.
    const waitMs = Math.max(0, until - Date.now());
    const timer = setTimer(() => {
      // Made in a timer's callback, its stack would hold only Node's timer internals; capturing it
      // is most of the cost when a crowd of callers gives up at once (measured: 0.4 s of CPU for
      // 10,000 waiters on one key), so none is captured.
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      let error: Error;
      try {
        error =
          store.silence?.(waitMs) ??
          new Error(`lockweave: the store did not answer an attempt within ${waitMs} ms (the caller's wait bound)`);
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
      reject(error);
    }, waitMs);
    // The caller's hold keeps the process up (base/process-hold.ts); this timer only bounds the wait.
    timer.unref();
    attempt.then(
      (answer) => {
        clearTimeout(timer);
        resolve(answer);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * The fencing token of a grant, undefined without fencing. A store that granted the key without the
 * token asked for cannot fence (it ignored the request): FencingUnavailableError, fatal, so the caller
 * fails at once and failed() gives the key back — a body that asked for a token never runs without one.
 */
function fenceOf(grant: Grant | undefined, settings: AcquireSettings, key: string): number | undefined {
  if (typeof grant === 'number') return grant;
  if (settings.fencing) {
    throw new FencingUnavailableError(
      `the store granted ${key} without a fencing token: it cannot fence; turn fencing off or use a store that fences`,
      key,
    );
  }
  return undefined;
}

/** The lease of a grant the store made under `token`, its lease counted from `acquiredAt` (when the grant's command was sent, or before it). */
function grantedLease(
  key: string,
  token: string,
  acquiredAt: number,
  fence: number | undefined,
  settings: AcquireSettings,
  context: AcquireContext,
): Lease {
  const { store, logger, use, label } = context;
  return new Lease({ key, token, acquiredAt, fence, store, settings, logger, use, label });
}

function attemptErrored(error: unknown, key: string, token: string, context: AcquireContext): unknown {
  context.logger?.({ type: 'error', key, token, during: 'acquire', error: error as Error });
  return error;
}

/** The grant is the caller's — once enough replicas have it, when it asks for replicas. */
function granted(
  lease: Lease,
  attempts: number,
  startedAt: number,
  settings: AcquireSettings,
  context: AcquireContext,
): Lease | Promise<Lease | undefined> {
  if (settings.replicas > 0) return replicated(lease, attempts, startedAt, settings, context);
  return logGranted(lease, attempts, startedAt, context);
}

async function replicated(
  lease: Lease,
  attempts: number,
  startedAt: number,
  settings: AcquireSettings,
  context: AcquireContext,
): Promise<Lease | undefined> {
  let problem: unknown;
  try {
    problem = await replicaShortfall(context.store, settings);
    if (problem === undefined) return logGranted(lease, attempts, startedAt, context);
  } catch (error) {
    problem = attemptErrored(error, lease.key, lease.token, context);
  }
  // Given back, token-checked (sent again in the background if Redis does not answer); the lease
  // keeps this acquisition's use of the store until that is done.
  await lease.release();
  return failed(
    lease.key,
    lease.token,
    startedAt,
    { deadline: 0, count: attempts, lastError: problem, erred: true },
    settings,
    { ...context, use: undefined },
    false,
  );
}

function logGranted(lease: Lease, attempts: number, startedAt: number, context: AcquireContext): Lease {
  context.logger?.({
    type: 'acquired',
    key: lease.key,
    token: lease.token,
    attempts,
    waitedMs: Date.now() - startedAt,
    site: context.site,
  });
  return lease;
}

function failed(
  key: string,
  token: string,
  startedAt: number,
  attempts: Attempts,
  settings: AcquireSettings,
  context: AcquireContext,
  /** The caller stood in line, or an attempt erred (and so may have set the key after all). */
  mayHaveLeftTraces: boolean,
): undefined {
  if (mayHaveLeftTraces) leave(key, token, settings, context.store);
  context.use?.end();
  // Aborted: the caller has its rejection already (abortable); this one goes nowhere, and is no failure to log.
  if (context.signal?.aborted) throw context.signal.reason;
  const waitedMs = Date.now() - startedAt;
  context.logger?.({ type: 'failed', key, attempts: attempts.count, waitedMs, site: context.site });
  const cause = attempts.lastError === undefined ? undefined : { cause: attempts.lastError };
  const error = new LockAcquireError(key, attempts.count, waitedMs, cause);
  if (typeof context.onFail === 'function') throw new context.onFail(error.message);
  if (context.onFail === 'skip') return undefined;
  throw error;
}

/**
 * Leaves the line, and passes the key on should it hold our token after all: an attempt that timed
 * out may have set it, or a release may have passed it to us just now. Token-checked, so safe; not
 * awaited, so the caller's failure is not delayed by it. Sent again should Redis not answer
 * (clean-up.ts), as a release is: else a lost attempt's key stays held by a caller that is gone,
 * from everyone, for its whole lease.
 */
function leave(key: string, token: string, settings: AcquireSettings, store: LockStore): void {
  store.leave(key, token).catch(() => {
    // What may hold the key for us came before this leave on its connection, so no later than now:
    // a lost attempt (a lease from now), or a pass while our place lasts (its lapse, then a claim).
    const leaseMs = settings.lockTime + (store.clockDriftMs?.(settings.lockTime) ?? 0);
    const until = Date.now() + Math.max(leaseMs, placeLastsMs(settings) + CLAIM_MS);
    sendAgain({ store, until: () => until, send: () => store.leave(key, token), done: () => undefined });
  });
}
