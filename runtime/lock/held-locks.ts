// Reentrancy: which locks the current async call chain holds.
//
// A woven method calls `lease.enter()` right after its `await acquire(...)`, in its own
// continuation, so the held key is seen by everything the body calls and awaits, and by
// nothing outside it (a caller's own continuation keeps the context it had). A nested call
// for a key already held in its chain goes straight in, with no round trip.
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

export function enterHeld(lock: HeldLock): void {
  context.enterWith({ lock, outer: context.getStore() });
}

export function findHeld(key: string): HeldLock | undefined {
  for (let frame = context.getStore(); frame; frame = frame.outer) {
    if (frame.lock.key === key && frame.lock.held) return frame.lock;
  }
  return undefined;
}
