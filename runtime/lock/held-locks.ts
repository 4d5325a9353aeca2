// Which locks the current async call chain holds: for reentrancy, and for currentLock().
//
// A woven method runs its body through `lease.run(body)`, which runs it inside
// AsyncLocalStorage.run() with the held key added. Everything the body calls and awaits sees
// the key; nothing outside it does. A nested call for a key already held in its chain goes
// straight in, with no round trip (unless the holder is not reentrant). The innermost lock is the
// body's own (api/current-lock.ts).
//
// Why run() and not enterWith(): enterWith() sets the context on whatever async resource is
// current, and through promise resolution that resource can belong to another chain
// (nodejs/node#45848). Under load this let one caller see another caller's lock as its own
// and walk in while it was held. run() scopes the context to the callback, on every Node
// version, with or without AsyncContextFrame.
//
// Caveat, as with any async-context reentrancy: callbacks the body schedules and leaves
// running inherit the context too, so each entry is checked for still being held.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface HeldLock {
  readonly key: string;
  readonly held: boolean;
  /** The grant's fencing token; undefined without fencing. */
  readonly fence?: number;
  /** Aborts when the lock is lost. */
  readonly signal: AbortSignal;
  /** True once its body has ended (a callback the body left running may still see it). */
  readonly ended: boolean;
  /** Makes the key last `ms` from now, and `ms` the lease's length (lease.ts). */
  extend(ms: number): Promise<void>;
  /** The watchdog stops: the lease runs out at its TTL. */
  stopRenewal(): void;
  /** Held on a Redlock majority: a call for the same key on the one Redis is not nested in it, nor the reverse. */
  readonly redlock: boolean;
}

interface Frame {
  readonly lock: HeldLock;
  readonly outer: Frame | undefined;
  /** False for a lock whose options say nested calls must wait (`reentrant=false`). */
  readonly reentrant: boolean;
}

const context = new AsyncLocalStorage<Frame>();

/** Runs `body` with `lock` recorded as held by its async chain. */
export function runHolding<T>(lock: HeldLock, body: () => T, reentrant = true): T {
  return context.run({ lock, outer: context.getStore(), reentrant }, body);
}

/**
 * runHolding() for a user's body, as a promise whatever the body does: one that throws before it
 * returns, or returns a plain value, settles it like an async body would. Callers chain their own
 * end of the hold (a gate's turn, a renewal) on it: a throw past them would skip that end, and the
 * lease would wait for ever for a body long gone. No promise more for a body that returns one.
 */
export function runBody<T>(lock: HeldLock, body: () => T | PromiseLike<T>, reentrant = true): Promise<T> {
  return runHolding(
    lock,
    () => {
      try {
        return Promise.resolve(body());
      } catch (error) {
        return Promise.reject(error);
      }
    },
    reentrant,
  );
}

export function findHeld(key: string, redlock: boolean): HeldLock | undefined {
  for (let frame = context.getStore(); frame; frame = frame.outer) {
    if (frame.reentrant && frame.lock.key === key && frame.lock.redlock === redlock && frame.lock.held)
      return frame.lock;
  }
  return undefined;
}

/** The lock of the innermost locked body the current async chain runs in, if any. */
export function innermostHeld(): HeldLock | undefined {
  return context.getStore()?.lock;
}
