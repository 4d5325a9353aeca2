// A nested reentrant call's lease: the outer lease, entered through its reentry gate, which only
// the outermost exit releases (see reentry-gate.ts, held-locks.ts).
import { LockLostError } from '../base/errors';
import { runHolding, type HeldLock } from './held-locks';
import type { Lease } from './lease';

/** How long a nested call waits for a sibling's turn to end, and what it fails with then. */
export interface NestedEntry {
  readonly waitMs: number;
  readonly onTimeout: () => unknown;
  /** The nested call's own `watchdog`: it keeps the outer lease renewed while it runs, if that lease is not. */
  readonly watchdog: boolean;
  /** The caller's: an abort while it waits for a sibling rejects with its reason. */
  readonly signal?: AbortSignal;
}

/**
 * What a nested reentrant call gets: the outer lease, which only the outermost exit releases.
 * Its body runs when no sibling nested call of the same lease is running (see reentry-gate.ts).
 */
export class NestedLease implements HeldLock, AsyncDisposable {
  private bodyEnded = false;

  constructor(
    readonly outer: Lease,
    /** The hold the calling chain is in: the outer lease, or the nested call it runs inside. */
    readonly within: HeldLock,
    private readonly entry: NestedEntry,
  ) {}
  get key(): string {
    return this.outer.key;
  }
  /** The outer lease's: a nested call runs under the same grant. */
  get fence(): number | undefined {
    return this.outer.fence;
  }
  /** False once its body has ended: a callback it left running falls back to the hold around it. */
  get held(): boolean {
    return !this.bodyEnded && this.outer.held;
  }
  get ended(): boolean {
    return this.bodyEnded;
  }
  get signal(): AbortSignal {
    return this.outer.signal;
  }
  get redlock(): boolean {
    return this.outer.redlock;
  }
  /** The outer lease's: one grant, one lease length (see Lease.extend). */
  extend(ms: number): Promise<void> {
    return this.outer.extend(ms);
  }
  stopRenewal(): void {
    this.outer.stopRenewal();
  }
  /**
   * Runs the body once its turn comes, under the outer grant — never after it: a call whose turn
   * comes when the outer lease is no longer held (lost, or released) fails with LockLostError.
   */
  run<T>(body: () => Promise<T>): Promise<T> {
    if (!this.outer.held) return Promise.reject(this.notHeld());
    const gate = this.outer.reentryGate;
    const leave = () => {
      this.bodyEnded = true;
      gate.leave(this);
    };
    return gate.enter(this.within, this, this.entry.waitMs, this.entry.onTimeout, this.entry.signal).then(() => {
      if (!this.outer.held) {
        leave();
        throw this.notHeld();
      }
      const run = () => runHolding(this, body);
      return (this.entry.watchdog ? this.outer.renewWhile(run) : run()).finally(leave);
    });
  }

  private notHeld(): LockLostError {
    return new LockLostError(
      `the lock on ${this.key} this call is nested in was no longer held when its turn came; the body did not run`,
      this.key,
    );
  }
  release(): Promise<void> {
    return Promise.resolve();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return Promise.resolve();
  }
}

/** What a call gets: its own lease, or, nested in a lease its chain holds, that lease's nested one. */
export type AnyLease = Lease | NestedLease;
