// A primary and one replica of it, on loopback: for failovers that lose what the replica missed.
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redis-server';
import { sleep } from './time';

const SYNC_TIMEOUT_MS = 10_000;

/**
 * Starts a replica of `primary` (`--replicaof`) and resolves once it is in sync as both sides see
 * it: the replica's link is up, and the primary counts it online. The replica says "up" as soon as
 * it has loaded the primary's data, but after a diskless sync the primary counts it — for WAIT
 * too — only once its first acknowledgement arrives, up to a second later.
 */
export async function startReplicaOf(primary: RedisServer): Promise<RedisServer> {
  // The primary waits 5 s by default before a diskless full sync, for more replicas to join.
  const onPrimary = new Redis(primary.url);
  try {
    await onPrimary.config('SET', 'repl-diskless-sync-delay', '0');
    const replica = await startRedisServer(['--replicaof', primary.host, String(primary.port)]);
    const client = new Redis(replica.url);
    try {
      const deadline = Date.now() + SYNC_TIMEOUT_MS;
      const inSync = async () =>
        /master_link_status:up/.test(await client.info('replication')) &&
        new RegExp(`slave\\d+:ip=[^,]+,port=${replica.port},state=online`).test(await onPrimary.info('replication'));
      while (!(await inSync())) {
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
  } finally {
    onPrimary.disconnect();
  }
}
