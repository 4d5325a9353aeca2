// One redis-server per test file: started before the file's tests, stopped after them.
// The runtime is configured against it, and a separate client is returned for assertions.
import type { TestFn } from 'ava';
import { Redis } from 'ioredis';
import { close, configure, type ConfigureOptions } from 'lockweave';
import { redisServerVersion, startRedisServer, type RedisServer } from './redis-server';

export interface RedisFixture {
  server: RedisServer;
  /** A plain client for looking at keys; not the runtime's. */
  redis: Redis;
}

export function useRedis(test: TestFn, options: Omit<ConfigureOptions, 'redis'> = {}): RedisFixture {
  const fixture = {} as RedisFixture;
  test.before(async (t) => {
    t.log(`server: ${redisServerVersion()}`);
    fixture.server = await startRedisServer();
    fixture.redis = new Redis(fixture.server.url);
    configure({ ...options, redis: fixture.server.url });
  });
  test.after.always(async () => {
    await close();
    fixture.redis?.disconnect();
    await fixture.server?.stop();
  });
  return fixture;
}

/** A key no other test in the run uses. */
let counter = 0;
export function uniqueId(label: string): string {
  return `${label}-${process.pid}-${++counter}`;
}
