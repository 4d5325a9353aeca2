// N independent redis-servers for Redlock: each its own process, port and temp dir, no
// replication between them. Fault tests kill, pause (SIGSTOP) and restart single ones by PID.
import type { TestFn } from 'ava';
import { Redis } from 'ioredis';
import { close } from 'lockweave';
import { redisServerVersion, startRedisServer, type RedisServer } from './redis-server';

export interface Primaries {
  readonly servers: RedisServer[];
  /** One plain client per server, for looking at keys (not the runtime's). */
  readonly clients: Redis[];
  readonly urls: string[];
  /** Pauses server `index` (SIGSTOP); resume() continues it. */
  pause(index: number): void;
  resume(index: number): void;
}

export async function startPrimaries(count: number): Promise<Primaries> {
  const servers = await Promise.all(Array.from({ length: count }, () => startRedisServer()));
  const paused = new Set<number>();
  const primaries: Primaries = {
    servers,
    urls: servers.map((server) => server.url),
    // No retries per command, short timeouts: a paused server must not hang a look at the others.
    clients: servers.map((server) => {
      const client = new Redis(server.url, {
        maxRetriesPerRequest: 1,
        commandTimeout: 2_000,
        retryStrategy: () => 100,
      });
      client.on('error', () => undefined);
      return client;
    }),
    pause(index) {
      process.kill(servers[index].pid, 'SIGSTOP');
      paused.add(index);
    },
    resume(index) {
      if (!paused.delete(index)) return;
      process.kill(servers[index].pid, 'SIGCONT');
    },
  };
  stopList.set(primaries, paused);
  return primaries;
}

const stopList = new Map<Primaries, Set<number>>();

/** Continues any paused server and stops them all (by PID). */
export async function stopPrimaries(primaries: Primaries | undefined): Promise<void> {
  if (!primaries) return;
  for (const index of stopList.get(primaries) ?? []) primaries.resume(index);
  stopList.delete(primaries);
  for (const client of primaries.clients) client.disconnect();
  await Promise.all(primaries.servers.map((server) => server.stop().catch(() => undefined)));
}

/**
 * Starts `count` primaries before the file's tests (then calls `started`, e.g. to configure the
 * runtime: ava runs a file's before hooks at once) and, after them, closes the runtime's
 * connections and then stops the servers (in that order: in one hook, as hooks run at once too).
 */
export function usePrimaries(
  test: TestFn,
  count: number,
  started?: (primaries: Primaries) => void,
): { primaries: Primaries } {
  const holder = {} as { primaries: Primaries };
  test.before(async (t) => {
    t.log(`servers: ${count} × ${redisServerVersion()}`);
    holder.primaries = await startPrimaries(count);
    started?.(holder.primaries);
  });
  test.after.always(async () => {
    await close();
    await stopPrimaries(holder.primaries);
  });
  return holder;
}
