// The lock's promises on a real redis-server.
import test from 'ava';
import type { LockEvent } from 'lockweave';
import { useRedis } from '../helpers/redis-fixture';
import { lockSemantics } from './lock-semantics';

const events: LockEvent[] = [];
const fixture = useRedis(test, { logger: (event) => events.push(event) });

lockSemantics(test, () => ({
  holder: (key) => fixture.redis.get(key),
  pttl: (key) => fixture.redis.pttl(key),
  events,
}));
