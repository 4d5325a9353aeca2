// The lock's promises on a real Redis Cluster (3 primaries, 3 replicas), with the runtime opening
// the Cluster itself from the nodes' URLs: the shared suite of test/runtime/lock-semantics.ts.
import test from 'ava';
import type { LockEvent } from 'lockweave';
import { useRedisCluster } from '../helpers/redis-cluster';
import { lockSemantics } from '../runtime/lock-semantics';

const events: LockEvent[] = [];
const fixture = useRedisCluster(test, { logger: (event) => events.push(event) });

lockSemantics(test, () => ({
  holder: (key) => fixture.client.get(key),
  pttl: (key) => fixture.client.pttl(key),
  events,
}));
