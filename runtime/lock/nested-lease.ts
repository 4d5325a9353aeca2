// A nested reentrant call's lease: the outer lease, entered through its reentry gate, which only
// the outermost exit releases (see reentry-gate.ts, held-locks.ts).
//
// The turn is taken when the lease is handed out and given back by its release, whichever way the
// call is made: a woven method and withLock() run their body between the two, and lock() hands the
// lease to code that runs between them itself (`const l = await lock(…); …; await l.release()`).
// Taken only in run(), two such sections nested in one holder's body ran side by side, and one the
// body did not await ran on after the outer release, beside the key's next holder.
import { LockLostError } from '../base/errors';
import { runBody, type HeldLock } from './held-locks';
import type { Lease } from './lease';

/** How long a nested call waits for a sibling's turn to end, and what it fails with then. */
export interface NestedEntry {
  readonly waitMs: number;
  readonly onTimeout: () => unknown;
  /** The nested call's own `watchdog`: it keeps the outer lease renewed while it holds its turn, if that lease is not. */
  readonly watchdog: boolean;
  /** The caller's: an abort while it waits for a sibling rejects with its reason. */
  readonly signal?: AbortSignal;
}

/**
 * What a nested reentrant call gets: the outer lease, which only the outermost exit releases.
 * It holds a turn at the outer lease's reentry gate from when it is handed out until its release:
 * no sibling nested call of the same lease runs meanwhile, and the outer release waits for it.
 */
export class NestedLease implements HeldLock, AsyncDisposable {
  private released = false;
  /** Ends the outer lease's renewal for this call (Lease.keepRenewed), when it asked for the watchdog. */
  private endRenewal: (() => void) | undefined;

  /**
   * Waits for the turn of a call nested in `within` (the hold its chain is in: the outer lease, or
   * a nested call it runs inside), at most `entry.waitMs`, and resolves its lease holding it. Never
   * after the outer grant: a call whose turn comes when the outer lease is no longer held (lost, or
   * released) fails with LockLostError.
   */
  static enter(outer: Lease, within: HeldLock, entry: NestedEntry): Promise<NestedLease> {
    if (!outer.held) return Promise.reject(notHeldWhenTurnCame(outer.key));
    // `this`, not the class's name: a self-reference makes the bundler rename the class (`_NestedLease`).
    const lease = new this(outer, within);
    return outer.reentryGate.enter(within, lease, entry.waitMs, entry.onTimeout, entry.signal).then(() => {
      if (!outer.held) {
        lease.end();
        throw notHeldWhenTurnCame(outer.key);
      }
      if (entry.watchdog) lease.endRenewal = outer.keepRenewed();
      return lease;
    });
  }

  /** Made by enter(): a nested lease holds its turn from the start. */
  private constructor(
    readonly outer: Lease,
    /** The hold the calling chain is in: the outer lease, or the nested call it runs inside. */
    readonly within: HeldLock,
  ) {}
  get key(): string {
    return this.outer.key;
  }
  /** The outer lease's: a nested call runs under the same grant. */
  get fence(): number | undefined {
    return this.outer.fence;
  }
  /** False once released: a callback its body left running falls back to the hold around it. */
  get held(): boolean {
    return !this.released && this.outer.held;
  }
  get ended(): boolean {
    return this.released;
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
   * Runs the body in this call's turn, recorded as its chain's innermost lock: a call nested in it
   * enters at once. Nothing once released, or once the outer lease is gone: it rejects with LockLostError.
   */
  run<T>(body: () => T | PromiseLike<T>): Promise<T> {
    if (this.released)
      return Promise.reject(
        new LockLostError(`cannot run a body under the lock on ${this.key}: this nested lease was released`, this.key),
      );
    if (!this.outer.held)
      return Promise.reject(
        new LockLostError(
          `cannot run a body under the lock on ${this.key}: the lease it is nested in is no longer held`,
          this.key,
        ),
      );
    return runBody(this, body);
  }

  /** Gives the turn back: the next sibling nested call may enter, and the outer release no longer waits for this one. */
  release(): Promise<void> {
    this.end();
    return Promise.resolve();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  private end(): void {
    if (this.released) return;
    this.released = true;
    this.endRenewal?.();
    this.outer.reentryGate.leave(this);
  }
}

function notHeldWhenTurnCame(key: string): LockLostError {
  return new LockLostError(
    `the lock on ${key} this call is nested in was no longer held when its turn came; the body did not run`,
    key,
  );
}

/** What a call gets: its own lease, or, nested in a lease its chain holds, that lease's nested one. */
export type AnyLease = Lease | NestedLease;
