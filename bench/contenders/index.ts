// The contenders by id. The floor comes first: every ratio is taken against it.
import type { Contender } from './contender';
import { createFloor, createFloorCluster } from './floor';
import { createFloorGlide } from './floor-glide';
import { createLockweave, createLockweaveNotReentrant } from './lockweave';
import { createRedlockV4, createRedlockV4Primaries } from './redlock-v4';
import { createSesamecareRedlock, createSesamecareRedlockPrimaries } from './sesamecare-redlock';
import { createRedisSemaphoreMutex } from './redis-semaphore-mutex';
import {
  createRedlockUniversal,
  createRedlockUniversalCluster,
  createRedlockUniversalPrimaries,
} from './redlock-universal';
import { createNodeRedisson } from './node-redisson';
import {
  createLockweaveAutoPipelining,
  createLockweaveCluster,
  createLockweaveGlide,
  createLockweaveGlideCluster,
  createLockweaveNodeRedis,
  createLockweaveNodeRedisCluster,
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

/**
 * lockweave on the other clients and topologies (bench/topologies.ts starts their servers), each
 * beside what it is read against there: the floor through the same client or on the same Cluster,
 * and the peers that lock on that topology (redlock-universal on a Cluster; the Redlock peers on
 * the same 3 primaries).
 */
const TOPOLOGIES: Record<string, () => Contender> = {
  'lockweave-owned': createLockweaveOwned,
  'lockweave-autopipelining': createLockweaveAutoPipelining,
  'lockweave-node-redis': createLockweaveNodeRedis,
  'floor-glide': createFloorGlide,
  'lockweave-glide': createLockweaveGlide,
  'floor-cluster': createFloorCluster,
  'lockweave-cluster': createLockweaveCluster,
  'lockweave-glide-cluster': createLockweaveGlideCluster,
  'lockweave-node-redis-cluster': createLockweaveNodeRedisCluster,
  'redlock-universal-cluster': createRedlockUniversalCluster,
  'lockweave-redlock': createLockweaveRedlock,
  'redlock-v4-primaries': createRedlockV4Primaries,
  'sesamecare-redlock-primaries': createSesamecareRedlockPrimaries,
  'redlock-universal-primaries': createRedlockUniversalPrimaries,
};

export const CONTENDERS: Record<string, () => Contender> = { ...SINGLE_NODE, ...TOPOLOGIES };

export const CONTENDER_IDS = Object.keys(SINGLE_NODE);
/** What bench/topologies.ts runs: the floor and lockweave on the single Redis, then each variant. */
export const TOPOLOGY_IDS = ['floor', 'lockweave', ...Object.keys(TOPOLOGIES)];
export const BASELINE_ID = 'floor';
