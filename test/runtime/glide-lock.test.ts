// The lock's promises on a real server (valkey-server 8 on the Valkey run, redis-server on the
// others) through a Valkey GLIDE client the user created: the same keys a process on ioredis uses.
import test from 'ava';
import { clientLockSemantics } from './client-fixture';
import { GLIDE } from './glide';

clientLockSemantics(test, GLIDE);
