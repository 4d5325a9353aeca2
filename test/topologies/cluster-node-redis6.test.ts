// The lock's promises on a Redis Cluster through a node-redis v6 `createCluster()`.
import test from 'ava';
import { createCluster } from 'redis';
import { clusterClientLockSemantics, nodeRedisCluster } from './cluster-client';

clusterClientLockSemantics(test, nodeRedisCluster(createCluster));
