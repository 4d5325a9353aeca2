// lockweave/runtime: what woven code calls, and the programmatic API.
import { assertTypeScriptWoven } from './base/weave-mark';

// On load: a process that runs TypeScript no lockweave route wove is refused here (base/weave-mark.ts).
assertTypeScriptWoven();

export { configure, close, type ConfigureOptions, type RedlockServer } from './api/configure';
export {
  defineLock,
  MethodLock,
  type DefineLockOptions,
  type LockSpec,
  type FailureClass,
  type SkippedBy,
} from './api/define-lock';
export { withLock, lock, type LockRequest, type LockTarget, type EachKeyRequest } from './api/with-lock';
export { inspect, type InspectRequest, type LockState } from './api/inspect';
export { readField, readJsonField } from './api/json-field';
export { currentLock, type CurrentLock } from './api/current-lock';
export {
  LockError,
  LockAcquireError,
  LockKeyError,
  LockLostError,
  FencingUnavailableError,
  RedisConnectionError,
} from './base/errors';
export { DEFAULT_LOCK_OPTIONS, type LockOptions, type OnFail } from './base/options';
export { consoleLogger, describeEvent, type LockEvent, type LockLogger } from './lock/events';
export { CHANNELS, type AcquireTrace, type HoldTrace, type LockLabel, type ObservedEvent } from './lock/observe';
export { Lease, NestedLease, type AnyLease } from './lock/lease';
export { MultiLease } from './lock/multi-lease';
export { MAX_KEY_LENGTH, type KeyValue } from './lock/key';
export type { LockStore, KeyState, PlaceInLine, Released, Notice, Grant, SuccessionRequest } from './store/lock-store';
export { RedisLockStore, DEFAULT_RELEASE_CHANNEL } from './store/redis-store';
export { NodeRedisLockStore } from './store/node-redis-store';
export type { NodeRedisClientLike } from './store/node-redis-client';
export type { NodeRedisClusterLike } from './store/node-redis-cluster';
export { GlideLockStore } from './store/glide-store';
export type { GlideClientLike } from './store/glide-client';
export { MemoryLockStore } from './store/memory-store';
export { RedlockStore, type RedlockNode } from './store/redlock-store';
