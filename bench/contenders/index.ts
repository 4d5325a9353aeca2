// The contenders by id. The floor comes first: every ratio is taken against it.
import type { Contender } from './contender';
import { createFloor } from './floor';
import { createFloorGlide } from './floor-glide';
import { createLockweave, createLockweaveNotReentrant } from './lockweave';
import { createRedlockV4 } from './redlock-v4';
import { createSesamecareRedlock } from './sesamecare-redlock';
import { createRedisSemaphoreMutex } from './redis-semaphore-mutex';
import { createRedlockUniversal } from './redlock-universal';
import { createNodeRedisson } from './node-redisson';
import {
  createLockweaveAutoPipelining,
  createLockweaveCluster,
  createLockweaveGlide,
  createLockweaveGlideCluster,
  createLockweaveNodeRedis,
  createLockweaveOwned,
  createLockweaveRedlock,
} from './lockweave-topologies';

/** The headline's contenders: every lock on the same single Redis. */
const SINGLE_NODE: Record<string, () => Contender> = {
  floor: createFloor,
  lockweave: createLockweave,
  'lockweave-not-reentrant': createLockweaveNotReentrant,
  'redlock-v4': createRedlockV4,
  'sesamecare-redlock': createSesamecareRedlock,
  'redis-semaphore': createRedisSemaphoreMutex,
  'redlock-universal': createRedlockUniversal,
  'node-redisson': createNodeRedisson,
};

/** lockweave on the other clients and topologies (bench/topologies.ts starts their servers). */
const TOPOLOGIES: Record<string, () => Contender> = {
  'lockweave-owned': createLockweaveOwned,
  'lockweave-autopipelining': createLockweaveAutoPipelining,
  'lockweave-node-redis': createLockweaveNodeRedis,
  'floor-glide': createFloorGlide,
  'lockweave-glide': createLockweaveGlide,
  'lockweave-cluster': createLockweaveCluster,
  'lockweave-glide-cluster': createLockweaveGlideCluster,
  'lockweave-redlock': createLockweaveRedlock,
};

export const CONTENDERS: Record<string, () => Contender> = { ...SINGLE_NODE, ...TOPOLOGIES };

export const CONTENDER_IDS = Object.keys(SINGLE_NODE);
/** What bench/topologies.ts runs: the floor and lockweave on the single Redis, then each variant. */
export const TOPOLOGY_IDS = ['floor', 'lockweave', ...Object.keys(TOPOLOGIES)];
export const BASELINE_ID = 'floor';
