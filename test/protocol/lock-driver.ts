// Every call into the lock layer the interleaving tests make, in one place (as store-driver.ts
// holds every store verb): take a lease as a woven method does, and give it back.
import { acquireLease, deadlineOf, type AcquireSettings } from '../../runtime/lock/acquire';
import type { LockLogger } from '../../runtime/lock/events';
import type { Lease } from '../../runtime/lock/lease';
import type { LockStore } from '../../runtime/store/lock-store';

export interface CallerSettings {
  readonly retries: number;
  readonly waitTime: number;
  readonly lockTime: number;
}

function settingsOf(caller: CallerSettings): AcquireSettings {
  return { ...caller, watchdog: true, autoUnlock: true, reentrant: false, replicas: 0 };
}

/** The lease, or the error the caller got (LockAcquireError when it gave up). */
export async function takeLease(
  store: LockStore,
  key: string,
  caller: CallerSettings,
  logger?: LockLogger,
): Promise<Lease | Error> {
  try {
    const lease = await acquireLease(key, settingsOf(caller), { store, logger, site: undefined, onFail: 'throw' });
    return lease ?? new Error('no lease and no error');
  } catch (error) {
    return error as Error;
  }
}

export function giveBack(lease: Lease): Promise<void> {
  return lease.release();
}

/** When a caller that started at `startedAt` gives up at the latest (its wait bound). */
export function waitBound(startedAt: number, caller: CallerSettings): number {
  return deadlineOf(startedAt, caller);
}
