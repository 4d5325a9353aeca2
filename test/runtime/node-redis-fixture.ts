// One redis-server per test file, with the runtime configured on a node-redis client the test
// connected (as a user would), and an ioredis client beside it for looking at keys.
import type { TestFn } from 'ava';
import { Redis } from 'ioredis';
import { close, configure, type ConfigureOptions, type LockEvent, type NodeRedisClientLike } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { lockSemantics } from './lock-semantics';

export interface NodeRedisFixture {
  server: RedisServer;
  /** The client the runtime locks with. */
  client: NodeRedisClientLike & { destroy(): void };
  /** A plain client for looking at keys; not the runtime's. */
  redis: Redis;
}

/** `connect` makes and connects a node-redis client of the version under test for a URL. */
export function useNodeRedis(
  test: TestFn,
  connect: (url: string) => Promise<NodeRedisFixture['client']>,
  options: Omit<ConfigureOptions, 'redis'> = {},
): NodeRedisFixture {
  const fixture = {} as NodeRedisFixture;
  test.before(async () => {
    fixture.server = await startRedisServer();
    fixture.redis = new Redis(fixture.server.url);
    fixture.client = await connect(fixture.server.url);
    configure({ ...options, redis: fixture.client });
  });
  test.after.always(async () => {
    await close();
    fixture.client?.destroy();
    fixture.redis?.disconnect();
    await fixture.server?.stop();
  });
  return fixture;
}

/** A node-redis `createClient`, of whichever version the test file imports. */
type CreateClient = (options: {
  url: string;
}) => NodeRedisFixture['client'] & { on(event: 'error', listener: () => void): unknown; connect(): Promise<unknown> };

/**
 * The shared promises (lock-semantics.ts) through a client of `createClient`'s version, connected
 * as a user would. One test file per version: configure() is process-wide.
 */
export function nodeRedisLockSemantics(test: TestFn, createClient: CreateClient): void {
  const events: LockEvent[] = [];
  const fixture = useNodeRedis(
    test,
    async (url) => {
      const client = createClient({ url });
      client.on('error', () => undefined);
      await client.connect();
      return client;
    },
    { logger: (event) => events.push(event) },
  );
  lockSemantics(test, () => ({
    holder: (key) => fixture.redis.get(key),
    pttl: (key) => fixture.redis.pttl(key),
    events,
  }));
}
