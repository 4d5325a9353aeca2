// The in-process store keeps the same promises as the Redis one.
import test from 'ava';
import { configure, MemoryLockStore, type LockEvent } from 'lockweave';
import { lockSemantics } from './lock-semantics';

const events: LockEvent[] = [];
const store = new MemoryLockStore();
configure({ store, logger: (event) => events.push(event) });

lockSemantics(test, () => ({
  holder: async (key) => store.holder(key),
  pttl: async (key) => store.pttl(key),
  events,
}));
