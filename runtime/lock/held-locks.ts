// Reentrancy: which locks the current async call chain holds.
//
// A woven method runs its body through `lease.run(body)`, which runs it inside
// AsyncLocalStorage.run() with the held key added. Everything the body calls and awaits sees
// the key; nothing outside it does. A nested call for a key already held in its chain goes
// straight in, with no round trip.
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
}

interface Frame {
  readonly lock: HeldLock;
  readonly outer: Frame | undefined;
}

const context = new AsyncLocalStorage<Frame>();

/** Runs `body` with `lock` recorded as held by its async chain. */
export function runHolding<T>(lock: HeldLock, body: () => T): T {
  return context.run({ lock, outer: context.getStore() }, body);
}

export function findHeld(key: string): HeldLock | undefined {
  for (let frame = context.getStore(); frame; frame = frame.outer) {
    if (frame.lock.key === key && frame.lock.held) return frame.lock;
  }
  return undefined;
}
