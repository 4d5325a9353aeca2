// A plain connection for the test itself: inspecting keys, cutting clients. Never a lock client.
import { Redis } from 'ioredis';

export function adminClient(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 3, commandTimeout: 5_000, connectionName: 'fault-admin' });
  client.on('error', () => undefined);
  return client;
}

/** Polls until `check` holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
