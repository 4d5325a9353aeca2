// No key value reaches a key lockweave keeps for itself, on Redis Cluster: the key's own keys stay in
// its slot (no CROSSSLOT), whether its prefix has a hash tag or not (the cases: runtime/own-keys.ts).
import test from 'ava';
import { useRedisCluster } from '../helpers/redis-cluster';
import { ownKeysCases } from '../runtime/own-keys';

const fixture = useRedisCluster(test);
ownKeysCases(test, () => fixture.client);
