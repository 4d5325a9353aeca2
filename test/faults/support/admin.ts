// A plain connection for the test itself: inspecting keys, cutting clients. Never a lock client.
import { Redis, type RedisOptions } from 'ioredis';

/**
 * What the test's own connections are told. No CLIENT SETINFO on connect: redis-server 7.0 answers
 * it with an error, and ioredis keeps the timer of a command that failed until its commandTimeout
 * runs out — two 5 s timers per connection, which kept a test's worker alive 5 s past its end.
 */
export const ADMIN_OPTIONS: RedisOptions = { maxRetriesPerRequest: 3, commandTimeout: 5_000, disableClientInfo: true };

export function adminClient(url: string): Redis {
  const client = new Redis(url, { ...ADMIN_OPTIONS, connectionName: 'fault-admin' });
  client.on('error', () => undefined);
  return client;
}

/**
 * Every key a lock leaves in Redis: the lock keys (`LOCK_…`) and the lines of waiters beside them
 * (`{LOCK_…}:lockweave:line`, `…:lapses` and `…:leases`; see runtime/store/waiting-line.ts). None may outlive
 * a run: a line whose waiters all left is deleted, one whose waiters died expires by itself.
 */
export async function lockLeftovers(client: Redis): Promise<string[]> {
  return [...(await client.keys('LOCK_*')), ...(await client.keys('{LOCK_*'))];
}
