// What every process-level fault case starts from: its own redis-server, an admin client for
// looking at keys and cutting connections, and a list of the worker processes it spawns —
// all stopped by the test's teardown, whether it passed or not.
import type { ExecutionContext } from 'ava';
import type { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { adminClient } from './admin';
import type { Worker } from './workers';

export interface FaultBench {
  redis: RedisServer;
  admin: Redis;
  workers: Worker[];
}

/** `redisArgs`: extra redis-server arguments (persistence for a restart that keeps the keys). */
export async function faultBench(t: ExecutionContext, redisArgs: readonly string[] = []): Promise<FaultBench> {
  const redis = await startRedisServer(redisArgs);
  const admin = adminClient(redis.url);
  const workers: Worker[] = [];
  t.teardown(async () => {
    await Promise.all(workers.map((worker) => worker.dispose()));
    admin.disconnect();
    await redis.stop();
  });
  return { redis, admin, workers };
}
