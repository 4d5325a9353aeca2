// The lock's promises on a real redis-server, through a node-redis v5 client the user connected.
import test from 'ava';
import { type LockEvent } from 'lockweave';
import { createClient } from 'redis5';
import { lockSemantics } from './lock-semantics';
import { useNodeRedis } from './node-redis-fixture';

const events: LockEvent[] = [];
const fixture = useNodeRedis(test, async (url) => {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}, { logger: (event) => events.push(event) });

lockSemantics(test, () => ({
  holder: (key) => fixture.redis.get(key),
  pttl: (key) => fixture.redis.pttl(key),
  events,
}));
