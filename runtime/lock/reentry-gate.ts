// Which nested call may run inside a held lock now.
//
// Reentrancy lets a call that its own async chain already holds the key for go straight in. But a
// holder's body can start several such calls at once (`Promise.all([pay(a), pay(a)])`): each sees
// the key held by its chain, and without a gate both would run beside each other — two bodies
// inside one lock. So nested calls of one lease take turns, in process and without Redis:
//
//   - the gate's `current` is the hold whose chain may enter now: the lease itself, or the
//     innermost nested call that is running;
//   - a nested call whose parent (the hold its chain is in) is `current` enters and becomes
//     `current`; when it ends, its parent is `current` again;
//   - any other nested call (a sibling of the one running) waits, in arrival order, for its parent
//     to be `current` again — at most its wait bound, as a call waiting on Redis would.
// So a call nested in a nested call still enters at once, and siblings run one at a time. A nested
// call holds its turn from when its lease is handed out to its release (nested-lease.ts): for a
// lease from lock(), the code between the two is the body.
//
// A body may start nested calls and not await them. They hold the key through the lease's grant,
// so the lease's release waits until the gate is idle — no nested call running or waiting — and a
// call waiting for a nested call that ended waits for the nearest hold still running instead.
import { setTimer } from '../base/timer-delay';

export interface Hold {
  readonly key: string;
  readonly held: boolean;
  /** For a nested call: the hold its chain was in when it started. */
  readonly within?: Hold;
}

interface Waiting {
  readonly parent: Hold;
  readonly child: Hold;
  readonly admit: () => void;
}

export class ReentryGate {
  private current: Hold;
  private readonly waiting: Waiting[] = [];
  /** The parent of each nested call that entered and has not ended. */
  private readonly parents = new Map<Hold, Hold>();
  /** Release calls waiting for the gate to be idle. */
  private idleWaiters: Array<() => void> = [];

  constructor(root: Hold) {
    this.current = root;
  }

  /**
   * Resolves when `child` (started in `parent`'s chain) may run; rejects with `onTimeout()` if its
   * turn has not come within `waitMs` (or with what onTimeout() threw: an onFail class whose
   * constructor throws).
   */
  enter(parent: Hold, child: Hold, waitMs: number, onTimeout: () => unknown, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.current === parent) {
      this.admit(parent, child);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const stop = (error: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        reject(error);
        this.notifyIfIdle();
      };
      const onAbort = () => stop(signal!.reason);
      const entry: Waiting = {
        parent,
        child,
        admit: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.admit(parent, child);
          resolve();
        },
      };
      // waitMs is retries × waitTime, which options.ts keeps within what a timer can keep.
      const timer = setTimer(() => stop(failure(onTimeout)), waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /**
   * `child` has ended (it is no longer `held`): the gate goes back to the nearest hold still
   * running — its parent, or further out when the parent ended first (a body that did not await a
   * call it started) — and the first call waiting for that hold enters.
   */
  leave(child: Hold): void {
    if (this.current !== child) return; // an inner call still runs; its end unwinds past this one
    let current = child;
    while (!current.held && this.parents.has(current)) {
      const parent = this.parents.get(current)!;
      this.parents.delete(current);
      current = parent;
    }
    this.current = current;
    // A call whose parent ended before its turn (a nested call that did not await it) waits for
    // the nearest hold around that parent still running.
    const next = this.waiting.findIndex((entry) => liveHold(entry.parent) === current);
    if (next >= 0) this.waiting.splice(next, 1)[0].admit();
    else this.notifyIfIdle();
  }

  /** Nested calls run or wait: the lease is not to be released yet. */
  get busy(): boolean {
    return this.parents.size > 0 || this.waiting.length > 0;
  }

  /** Resolves once no nested call runs or waits. */
  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIfIdle(): void {
    if (this.busy || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private admit(parent: Hold, child: Hold): void {
    this.parents.set(child, parent);
    this.current = child;
  }
}

/**
 * What a wait that timed out rejects with. onTimeout() makes the caller's error — an `onFail` class
 * of the user's among them — in a timer callback: a throw there would end the process, so what it
 * throws is the rejection instead, as it is for a call that fails on Redis.
 */
function failure(onTimeout: () => unknown): unknown {
  try {
    return onTimeout();
  } catch (error) {
    return error;
  }
}

/** `hold`, or — when it has ended — the nearest hold around it that has not. */
function liveHold(hold: Hold): Hold {
  let live = hold;
  while (!live.held && live.within) live = live.within;
  return live;
}
