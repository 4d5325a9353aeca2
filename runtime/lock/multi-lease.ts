// Several keys held as one (a tag's keyNames, withLock({ keys })): each key is a lock of its own,
// with its own lease, line, watchdog and fence; this holds them together. They are taken one after
// another in one global order — the keys sorted — so two callers whose sets overlap always meet on
// the first key they share, and one waits there holding nothing the other needs: no deadlock,
// whatever the order the caller named them in (Redisson's MultiLock takes them in the caller's
// order, and leaves that to you). All or nothing: a key that cannot be taken gives back the keys
// taken before it (api/define-lock.ts, acquireEach).
import type { AnyLease } from './lease';

export class MultiLease implements AsyncDisposable {
  private combined: AbortSignal | undefined;

  /** The leases in the order they were taken: the keys', sorted. */
  constructor(readonly leases: readonly AnyLease[]) {}

  get keys(): string[] {
    return this.leases.map((lease) => lease.key);
  }

  /** True while every key is held. */
  get held(): boolean {
    return this.leases.every((lease) => lease.held);
  }

  /** Aborts when any of the keys is lost, with that key's LockLostError. */
  get signal(): AbortSignal {
    return (this.combined ??= AbortSignal.any(this.leases.map((lease) => lease.signal)));
  }

  /**
   * Runs the body holding every key: each lease's run() around the next, so a nested call for any of
   * the keys is reentrant, and currentLock() in the body is the last key's.
   */
  run<T>(body: () => T | PromiseLike<T>): Promise<T> {
    // Each run() returns a promise that settles whatever its body does — throws before it returns,
    // returns a plain value (held-locks.ts, runBody) — so no nested key's turn is left behind.
    const nested = this.leases.reduceRight<() => T | PromiseLike<T>>((inner, lease) => () => lease.run(inner), body);
    return this.leases.length > 0
      ? (nested() as Promise<T>)
      : Promise.reject(new TypeError('lockweave: a MultiLease of no keys holds nothing'));
  }

  /** Every key's release, the last taken first; like each release, never throws. */
  async release(): Promise<void> {
    await Promise.all([...this.leases].reverse().map((lease) => lease.release()));
  }

  /** extend(ms) on every key (lease.ts); rejects with the first key's error, the others extended or lost. */
  async extend(ms: number): Promise<void> {
    await Promise.all(this.leases.map((lease) => lease.extend(ms)));
  }

  stopRenewal(): void {
    for (const lease of this.leases) lease.stopRenewal();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
