// The lock's promises on a real redis-server, through an ioredis 6 client the user connected
// (the runtime itself is built against ioredis 5; a client of another copy or major is taken by
// its shape, see store/ioredis-client.ts).
import test from 'ava';
import { Redis as Redis6 } from 'ioredis6';
import { Redis } from 'ioredis';
import { close, configure, type LockEvent } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { lockSemantics } from './lock-semantics';

const events: LockEvent[] = [];
let server: RedisServer;
let client: Redis6;
let redis: Redis;

test.before(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  client = new Redis6(server.url);
  configure({ redis: client as never, logger: (event) => events.push(event) });
});

test.after.always(async () => {
  await close();
  client?.disconnect();
  redis?.disconnect();
  await server?.stop();
});

lockSemantics(test, () => ({
  holder: (key) => redis.get(key),
  pttl: (key) => redis.pttl(key),
  events,
}));
