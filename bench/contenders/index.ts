// The contenders by id. The floor comes first: every ratio is taken against it.
import type { Contender } from './contender';
import { createFloor } from './floor';
import { createLockweave, createLockweaveNotReentrant } from './lockweave';
import { createRedlockV4 } from './redlock-v4';
import { createSesamecareRedlock } from './sesamecare-redlock';
import { createRedisSemaphoreMutex } from './redis-semaphore-mutex';
import { createRedlockUniversal } from './redlock-universal';
import { createNodeRedisson } from './node-redisson';

export const CONTENDERS: Record<string, () => Contender> = {
  floor: createFloor,
  lockweave: createLockweave,
  'lockweave-not-reentrant': createLockweaveNotReentrant,
  'redlock-v4': createRedlockV4,
  'sesamecare-redlock': createSesamecareRedlock,
  'redis-semaphore': createRedisSemaphoreMutex,
  'redlock-universal': createRedlockUniversal,
  'node-redisson': createNodeRedisson,
};

export const CONTENDER_IDS = Object.keys(CONTENDERS);
export const BASELINE_ID = 'floor';
