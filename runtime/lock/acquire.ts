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
import { LockAcquireError } from '../api/errors';
import type { LockLogger } from './events';
import { Lease, type LeaseSettings } from './lease';
import { newToken } from './token';
import type { LockStore } from '../store/lock-store';
import type { ReleaseWatch } from '../store/release-feed';

export interface AcquireSettings extends LeaseSettings {
  readonly retries: number;
  readonly waitTime: number;
}

export interface AcquireContext {
  readonly store: LockStore;
  readonly logger: LockLogger | undefined;
  /** The woven method, for log lines: `OrderService.pay`. */
  readonly site?: string;
}

/** Resolves with the lease, or rejects with LockAcquireError when the deadline passes. */
export async function acquireLease(key: string, settings: AcquireSettings, context: AcquireContext): Promise<Lease> {
  const { store, logger, site } = context;
  const startedAt = Date.now();
  let attempts = 0;
  let lastError: unknown;
  let watch: ReleaseWatch | undefined;

  const attempt = async (): Promise<Lease | undefined> => {
    attempts++;
    // A fresh token per attempt: an attempt that timed out may still have set its token, and
    // then only a release with that very token may clean it up.
    const token = newToken();
    const sentAt = Date.now();
    try {
      if (await store.tryAcquire(key, token, settings.lockTime)) return new Lease(key, token, store, settings, logger, sentAt);
    } catch (error) {
      lastError = error;
      logger?.({ type: 'error', key, token, during: 'acquire', error: error as Error });
      store.release(key, token).catch(() => undefined);
    }
    return undefined;
  };

  try {
    let lease = await attempt();
    if (!lease && settings.retries > 0) {
      const deadline = startedAt + settings.retries * settings.waitTime;
      let nextScheduled = startedAt + settings.waitTime;
      // Watch first, then try again: a release between our first attempt and the watch
      // starting would otherwise go unseen until the next scheduled attempt.
      watch = await store.releases.watch(key);
      let seen = watch.epoch;
      lease = await attempt();
      while (!lease && Date.now() < deadline) {
        const now = Date.now();
        if (now >= nextScheduled) nextScheduled = now + settings.waitTime;
        const waitMs = Math.min(nextScheduled, deadline) - now;
        logger?.({ type: 'waiting', key, attempt: attempts, waitMs, site });
        await watch.sleep(seen, waitMs);
        seen = watch.epoch;
        lease = await attempt();
      }
    }
    const waitedMs = Date.now() - startedAt;
    if (lease) {
      logger?.({ type: 'acquired', key, token: lease.token, attempts, waitedMs, site });
      return lease;
    }
    logger?.({ type: 'failed', key, attempts, waitedMs, site });
    throw new LockAcquireError(key, attempts, waitedMs, lastError === undefined ? undefined : { cause: lastError });
  } finally {
    watch?.close();
  }
}
