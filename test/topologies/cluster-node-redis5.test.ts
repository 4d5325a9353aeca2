// The lock's promises on a Redis Cluster through a node-redis v5 `createCluster()`.
import test from 'ava';
import { createCluster } from 'redis5';
import { clusterClientLockSemantics, nodeRedisCluster } from './cluster-client';

clusterClientLockSemantics(test, nodeRedisCluster(createCluster));
