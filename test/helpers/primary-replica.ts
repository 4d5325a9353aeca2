// A primary and one replica of it, on loopback: for failovers that lose what the replica missed.
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redis-server';
import { sleep } from './time';

const SYNC_TIMEOUT_MS = 10_000;

/** Starts a replica of `primary` (`--replicaof`) and resolves once its link is up and in sync. */
export async function startReplicaOf(primary: RedisServer): Promise<RedisServer> {
  // The primary waits 5 s by default before a diskless full sync, for more replicas to join.
  const onPrimary = new Redis(primary.url);
  await onPrimary.config('SET', 'repl-diskless-sync-delay', '0').finally(() => onPrimary.disconnect());
  const replica = await startRedisServer(['--replicaof', primary.host, String(primary.port)]);
  const client = new Redis(replica.url);
  try {
    const deadline = Date.now() + SYNC_TIMEOUT_MS;
    while (!/master_link_status:up/.test(await client.info('replication'))) {
      if (Date.now() > deadline)
        throw new Error(`replica on ${replica.port} did not sync with ${primary.port} within ${SYNC_TIMEOUT_MS} ms`);
      await sleep(50);
    }
  } catch (error) {
    await replica.stop();
    throw error;
  } finally {
    client.disconnect();
  }
  return replica;
}
