// No key value reaches a key lockweave keeps for itself, on one Redis (the cases: own-keys.ts).
import test from 'ava';
import { useRedis } from '../helpers/redis-fixture';
import { ownKeysCases } from './own-keys';

const fixture = useRedis(test);
ownKeysCases(test, () => fixture.redis);
