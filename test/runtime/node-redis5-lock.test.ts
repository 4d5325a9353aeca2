// The lock's promises on a real redis-server, through a node-redis v5 client the user connected.
import test from 'ava';
import { createClient } from 'redis5';
import { clientLockSemantics, nodeRedisFamily } from './client-fixture';

clientLockSemantics(test, nodeRedisFamily('redis5', createClient));
