// Where a lock's key went, database by database, and an ACL user whose SELECT is taken away: what
// the database tests (database-reconnect, database-select, database-select-method) look at.
import { Redis } from 'ioredis';
import type { RedisServer } from '../helpers/redis-server';

/** The databases of `at` (0 to `count` - 1) that hold `key`, each looked at with its own SELECT. */
export async function databasesHolding(at: RedisServer, key: string, count = 16): Promise<number[]> {
  const look = new Redis(at.url);
  try {
    const found: number[] = [];
    for (let db = 0; db < count; db++) {
      await look.select(db);
      if (await look.exists(key)) found.push(db);
    }
    return found;
  } finally {
    look.disconnect();
  }
}

/**
 * Takes SELECT from `user` and cuts its connections: each logs in again, and its SELECTs are
 * refused. Resolves to what gives SELECT back (and cuts them again, so they log in with it).
 */
export async function selectRefused(admin: Redis, user: string): Promise<() => Promise<void>> {
  await admin.acl('SETUSER', user, '-select');
  await admin.client('KILL', 'USER', user);
  return async () => {
    await admin.acl('SETUSER', user, '+select');
    await admin.client('KILL', 'USER', user);
  };
}
