// How the runtime fails and recovers on a node-redis client (client-fixture.ts): v6 in full, and
// v5's process that exits without close().
import test from 'ava';
import { createClient } from 'redis';
import { clientConnectionPromises, clientExitsWithoutClose, nodeRedisFamily } from './client-fixture';

clientConnectionPromises(test, nodeRedisFamily('redis', createClient));
clientExitsWithoutClose(test, 'redis5');
