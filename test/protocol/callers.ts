// The callers of the interleaving tests, and what each checks as it goes: it is answered by its
// wait bound, and nobody else holds its key while its lease holds (Lease.held: not lost, not past
// the last moment the key was known to be ours).
import fc from 'fast-check';
import { giveBack, takeLease, waitBound, type CallerSettings } from './lock-driver';
import type { Lease } from '../../runtime/lock/lease';
import type { LockStore } from '../../runtime/store/lock-store';

/** A loaded machine's lateness past a bound (GC, a busy 2-core host, a reconnect): a bound, not a timing claim. */
export const SLACK_MS = 3_000;
export const KEYS = ['k0', 'k1'];

export interface Caller extends CallerSettings {
  readonly process: number;
  readonly key: number;
  /** Turns the body takes (scheduler turns, or real milliseconds ×10). */
  readonly body: number;
}

export const callerArb: fc.Arbitrary<Caller> = fc.record({
  process: fc.integer({ min: 0, max: 2 }),
  key: fc.integer({ min: 0, max: KEYS.length - 1 }),
  retries: fc.integer({ min: 0, max: 4 }),
  waitTime: fc.constantFrom(20, 50, 100, 700),
  // Short leases lapse when their process dies (the watchdog renews them while it lives).
  lockTime: fc.constantFrom(300, 30_000),
  body: fc.integer({ min: 0, max: 3 }),
});

export interface RunStats {
  runs: number;
  commands: number;
  faults: number;
  acquired: number;
  gaveUp: number;
}

export const newStats = (): RunStats => ({ runs: 0, commands: 0, faults: 0, acquired: 0, gaveUp: 0 });

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What one run's callers share: who is inside each key now, and what went wrong. */
export class Run {
  private readonly inside = new Map<string, { id: number; lease: Lease }>();
  readonly problems: string[] = [];
  /** The lock layer's events, for the report of a failure. */
  readonly events: string[] = [];
  private readonly t0 = Date.now();

  constructor(
    private readonly stats: RunStats,
    private readonly bodyTurn: (id: number) => Promise<unknown>,
  ) {}

  async caller(store: LockStore, caller: Caller, id: number): Promise<void> {
    const key = KEYS[caller.key]!;
    const startedAt = Date.now();
    const lease = await takeLease(store, key, caller, (event) => {
      const { error, ...rest } = event as { error?: Error };
      this.events.push(
        `${Date.now() - this.t0} ms caller ${id}: ${JSON.stringify(rest)}${error ? ` (${error.message})` : ''}`,
      );
    });
    const late = Date.now() - waitBound(startedAt, caller);
    if (late > SLACK_MS)
      this.problems.push(
        `caller ${id} was answered ${late} ms past its wait bound; ${this.events.filter((line) => line.includes(`caller ${id}:`)).join('\n')}`,
      );
    if (lease instanceof Error) {
      this.stats.gaveUp++;
      return;
    }
    this.stats.acquired++;
    const before = this.inside.get(key);
    if (before?.lease.held)
      this.problems.push(`callers ${before.id} and ${id} held ${key} together, within ${before.id}'s lease`);
    this.inside.set(key, { id, lease });
    for (let turn = 0; turn < caller.body; turn++) await this.bodyTurn(id);
    if (this.inside.get(key)?.id === id) this.inside.delete(key);
    await giveBack(lease);
  }
}
