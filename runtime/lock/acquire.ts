// Taking a lock: one attempt, then waits that end early when the key is released.
//
// The schedule keeps the seed's promise and improves on it. The seed checked `retries` more
// times, `waitTime` apart, and gave up after retries × waitTime. We keep that deadline and
// those scheduled attempts, and add one attempt each time the key is released in between —
// so a caller never waits for a holder that is already gone, and never gives up sooner than
// the seed would have. A wake-up that loses the race to another caller does not use up a retry.
//
// An attempt that fails with an error (Redis unreachable, a timeout) counts as a failed
// attempt: the caller keeps trying until the deadline and then gets LockAcquireError with the
// last error as its cause — never a hang past the deadline, never the body run unlocked.
import { LockAcquireError } from '../base/errors';
import type { OnFail } from '../base/options';
import type { LockLogger } from './events';
import { Lease, type LeaseSettings, type StoreClaim } from './lease';
import { newToken } from './token';
import type { LockStore } from '../store/lock-store';
import type { ReleaseWatch } from '../store/release-feed';

export interface AcquireSettings extends LeaseSettings {
  readonly retries: number;
  readonly waitTime: number;
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
  readonly claim?: StoreClaim;
}

interface Attempts {
  count: number;
  lastError: unknown;
  /** The latest attempt failed with an error rather than finding the key held. */
  erred: boolean;
}

/** An error retrying cannot fix (a wrong TLS setting, password or database): no point waiting. */
function isFatal(error: unknown): boolean {
  return (error as { fatal?: unknown } | undefined)?.fatal === true;
}

/**
 * Resolves with the lease; when every attempt fails, rejects with LockAcquireError (or the
 * onFail class), or resolves undefined for onFail=skip.
 */
export async function acquireLease(key: string, settings: AcquireSettings, context: AcquireContext): Promise<Lease | undefined> {
  const startedAt = Date.now();
  // Callers of this process already queue for the key: join them rather than barge in with a
  // SET that would almost surely fail (the key is held, or about to be handed to the queue's
  // head). Wasted SETs under contention slow the very handoffs they race with. Release notices
  // and the scheduled attempts still wake this caller; it is served in arrival order.
  // That first attempt is answered in process (the key is known held), so it counts as one: a
  // caller that never gets the key makes `retries + 1` attempts either way.
  if (settings.retries > 0 && context.store.releases.isWatched(key)) {
    return waitForLease(key, settings, context, startedAt, { count: 1, lastError: undefined, erred: false }, false);
  }
  // The uncontended path is this one attempt: keep it to a single await.
  const token = newToken();
  let lastError: unknown;
  try {
    if (await context.store.tryAcquire(key, token, settings.lockTime)) {
      return granted(new Lease(key, token, context.store, settings, context.logger, startedAt, context.claim), 1, startedAt, context);
    }
  } catch (error) {
    lastError = attemptErrored(error, key, token, context);
  }
  const attempts = { count: 1, lastError, erred: lastError !== undefined };
  if (isFatal(lastError)) return failed(key, startedAt, attempts, context);
  return waitForLease(key, settings, context, startedAt, attempts, true);
}

async function waitForLease(
  key: string,
  settings: AcquireSettings,
  context: AcquireContext,
  startedAt: number,
  attempts: Attempts,
  /** Whether the key may have been released before the watch began (a SET already found it held). */
  lookFirst: boolean,
): Promise<Lease | undefined> {
  if (settings.retries === 0) return failed(key, startedAt, attempts, context);
  const { store, logger, site } = context;
  // Watch first, then look: a release between the first attempt and the watch starting would
  // otherwise go unseen until the next scheduled attempt. The look is an EXISTS, not a SET, and
  // only a key found free is tried again — as after a release notice — so the SETs a caller sends
  // are the ones its schedule says: the first, then `retries`, plus one per release in between.
  let watch: ReleaseWatch;
  try {
    watch = await store.releases.watch(key, settings.lockTime);
  } catch (error) {
    context.claim?.end();
    throw error;
  }
  try {
    let seen = watch.epoch;
    let lease = lookFirst && (await freedMeanwhile(key, context)) ? await attemptOnce(key, settings, context, attempts) : undefined;
    // The scheduled attempts stand at fixed times, startedAt + k × waitTime for k = 1..retries (the
    // last one at the deadline), whatever the timers' drift; a release in between adds an attempt.
    let scheduled = 0;
    while (!lease && scheduled < settings.retries && !isFatal(attempts.lastError)) {
      const dueAt = startedAt + (scheduled + 1) * settings.waitTime;
      const waitMs = dueAt - Date.now();
      if (waitMs > 0) {
        logger?.({ type: 'waiting', key, attempt: attempts.count, waitMs, site, ...(attempts.erred ? { error: attempts.lastError as Error } : {}) });
        await watch.sleep(seen, waitMs);
      }
      const released = watch.epoch !== seen;
      seen = watch.epoch;
      const grant = watch.takeGrant();
      if (grant) {
        attempts.count++;
        lease = new Lease(key, grant.token, store, settings, logger, grant.sentAt, context.claim);
        break;
      }
      const due = Date.now() >= dueAt;
      if (!released && !due) continue; // woken early (a clamped timer): not time yet
      if (due) scheduled++;
      lease = await attemptOnce(key, settings, context, attempts);
    }
    return lease ? granted(lease, attempts.count, startedAt, context) : failed(key, startedAt, attempts, context);
  } catch (error) {
    context.claim?.end(); // idempotent: failed() may have ended it before throwing
    throw error;
  } finally {
    watch.close();
  }
}

/** False when the store cannot tell (an error): the scheduled attempts go on as planned. */
function freedMeanwhile(key: string, context: AcquireContext): Promise<boolean> {
  return context.store.isHeld(key).then((held) => !held, () => false);
}

async function attemptOnce(key: string, settings: AcquireSettings, context: AcquireContext, attempts: Attempts): Promise<Lease | undefined> {
  attempts.count++;
  attempts.erred = false;
  // A fresh token per attempt: an attempt that timed out may still have set its token, and
  // then only a release with that very token may clean it up.
  const token = newToken();
  const sentAt = Date.now();
  try {
    if (await context.store.tryAcquire(key, token, settings.lockTime)) {
      return new Lease(key, token, context.store, settings, context.logger, sentAt, context.claim);
    }
  } catch (error) {
    attempts.lastError = attemptErrored(error, key, token, context);
    attempts.erred = true;
  }
  return undefined;
}

function attemptErrored(error: unknown, key: string, token: string, context: AcquireContext): unknown {
  context.logger?.({ type: 'error', key, token, during: 'acquire', error: error as Error });
  context.store.release(key, token).catch(() => undefined);
  return error;
}

function granted(lease: Lease, attempts: number, startedAt: number, context: AcquireContext): Lease {
  context.logger?.({
    type: 'acquired', key: lease.key, token: lease.token, attempts, waitedMs: Date.now() - startedAt, site: context.site,
  });
  return lease;
}

function failed(key: string, startedAt: number, attempts: Attempts, context: AcquireContext): undefined {
  context.claim?.end();
  const waitedMs = Date.now() - startedAt;
  context.logger?.({ type: 'failed', key, attempts: attempts.count, waitedMs, site: context.site });
  const cause = attempts.lastError === undefined ? undefined : { cause: attempts.lastError };
  const error = new LockAcquireError(key, attempts.count, waitedMs, cause);
  if (typeof context.onFail === 'function') throw new context.onFail(error.message);
  if (context.onFail === 'skip') return undefined;
  throw error;
}
