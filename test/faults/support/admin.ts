// A plain connection for the test itself: inspecting keys, cutting clients. Never a lock client.
import { Redis } from 'ioredis';

export function adminClient(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 3, commandTimeout: 5_000, connectionName: 'fault-admin' });
  client.on('error', () => undefined);
  return client;
}

/**
 * Every key a lock leaves in Redis: the lock keys (`LOCK_…`) and the lines of waiters beside them
 * (`{LOCK_…}:lockweave:line` and `…:lapses`; see runtime/store/waiting-line.ts). None may outlive
 * a run: a line whose waiters all left is deleted, one whose waiters died expires by itself.
 */
export async function lockLeftovers(client: Redis): Promise<string[]> {
  return [...(await client.keys('LOCK_*')), ...(await client.keys('{LOCK_*'))];
}
