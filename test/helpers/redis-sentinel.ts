// A throwaway Sentinel topology for one test file: a primary, one replica and three Sentinels
// (quorum 2), each a redis-server of redis-server.ts on a free loopback port in its own directory.
//
// Failover is made quick — a primary is "down" after 1 s without an answer — so that a test can
// SIGKILL the primary and see the replica promoted within a few seconds. Only the processes
// started here are ever signalled, by their own PIDs.
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redis-server';
import { sleep, until } from './time';

export const SENTINEL_NAME = 'mymaster';
/** How long a primary may not answer before the Sentinels call it down. */
export const DOWN_AFTER_MS = 1_000;
const FAILOVER_TIMEOUT_MS = 5_000;
const SENTINELS = 3;

export interface SentinelTopology {
  /** The servers, primary first as started; after a failover `primary` names the promoted one. */
  readonly servers: readonly [RedisServer, RedisServer];
  readonly primary: RedisServer;
  readonly replica: RedisServer;
  readonly sentinels: readonly RedisServer[];
  /** What ioredis takes for a Sentinel client: `{ sentinels, name }`. */
  readonly sentinelOptions: { sentinels: Array<{ host: string; port: number }>; name: string };
  /** SIGKILLs the primary and resolves when it has exited; returns the kill's time. */
  killPrimary(): Promise<number>;
  /**
   * Resolves when a Sentinel reports a primary other than `formerPort` and that server answers as a
   * primary; returns when that was seen. Rejects after `timeoutMs`.
   */
  waitForPromotion(formerPort: number, timeoutMs?: number): Promise<number>;
  /** Starts the killed server again as a replica of the current primary. */
  restartAsReplica(server: RedisServer): Promise<void>;
  /** Stops every process (sentinels first, so they do not fail over while the servers stop). */
  stop(): Promise<void>;
}

export async function startSentinelTopology(): Promise<SentinelTopology> {
  const started: RedisServer[] = [];
  try {
    const first = await startRedisServer();
    started.push(first);
    const second = await startRedisServer(['--replicaof', '127.0.0.1', String(first.port)]);
    started.push(second);
    await waitForSync(second);
    const config = [
      `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${first.port} 2`,
      `sentinel down-after-milliseconds ${SENTINEL_NAME} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${SENTINEL_NAME} ${FAILOVER_TIMEOUT_MS}`,
      `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
    ].join('\n');
    const sentinels: RedisServer[] = [];
    for (let i = 0; i < SENTINELS; i++) {
      const sentinel = await startRedisServer([], { sentinelConfig: config });
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    await waitForSentinelsToSee(sentinels, second.port);
    return topology([first, second], sentinels);
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    throw error;
  }
}

function topology(servers: [RedisServer, RedisServer], sentinels: RedisServer[]): SentinelTopology {
  let primary = servers[0];
  const other = (server: RedisServer) => (server === servers[0] ? servers[1] : servers[0]);
  return {
    servers,
    sentinels,
    get primary() {
      return primary;
    },
    get replica() {
      return other(primary);
    },
    sentinelOptions: { sentinels: sentinels.map((s) => ({ host: s.host, port: s.port })), name: SENTINEL_NAME },
    async killPrimary() {
      const at = Date.now();
      await primary.kill();
      return at;
    },
    async waitForPromotion(formerPort, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const port = await reportedPrimary(sentinels);
        if (port !== undefined && port !== formerPort && (await role(port)) === 'master') {
          primary = servers.find((server) => server.port === port)!;
          return Date.now();
        }
        await sleep(20);
      }
      throw new Error(`no Sentinel reported a new primary within ${timeoutMs} ms`);
    },
    async restartAsReplica(server) {
      await server.restart(['--replicaof', '127.0.0.1', String(primary.port)]);
    },
    async stop() {
      await Promise.all(sentinels.map((sentinel) => sentinel.stop()));
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}

/** The port of the primary the first answering Sentinel names. */
async function reportedPrimary(sentinels: readonly RedisServer[]): Promise<number | undefined> {
  for (const sentinel of sentinels) {
    const reply = await ask(sentinel.port, ['SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME]);
    if (Array.isArray(reply) && reply.length === 2) return Number(reply[1]);
  }
  return undefined;
}

async function role(port: number): Promise<string | undefined> {
  const reply = await ask(port, ['ROLE']);
  return Array.isArray(reply) ? String(reply[0]) : undefined;
}

/** One command on a short-lived connection that never retries; undefined when it fails. */
async function ask(port: number, command: string[]): Promise<unknown> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 500,
    commandTimeout: 500,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(command[0], ...command.slice(1));
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

async function waitForSync(replica: RedisServer, timeoutMs = 15_000): Promise<void> {
  await until(
    async () => {
      const reply = await ask(replica.port, ['ROLE']);
      return Array.isArray(reply) && reply[0] === 'slave' && reply[3] === 'connected';
    },
    { what: `the replica on port ${replica.port} syncing`, timeoutMs, everyMs: 20 },
  );
}

/** Sentinels learn the replica (and each other) from the primary's INFO: failover needs both. */
async function waitForSentinelsToSee(
  sentinels: readonly RedisServer[],
  replicaPort: number,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const sentinel of sentinels) {
    for (;;) {
      const replicas = await ask(sentinel.port, ['SENTINEL', 'replicas', SENTINEL_NAME]);
      const master = await ask(sentinel.port, ['SENTINEL', 'master', SENTINEL_NAME]);
      const seesReplica = Array.isArray(replicas) && JSON.stringify(replicas).includes(`"${replicaPort}"`);
      const others = Array.isArray(master) ? Number(master[master.indexOf('num-other-sentinels') + 1]) : 0;
      if (seesReplica && others >= sentinels.length - 1) break;
      if (Date.now() > deadline)
        throw new Error(
          `Sentinel on port ${sentinel.port} did not see the replica and its peers within ${timeoutMs} ms`,
        );
      await sleep(50);
    }
  }
}
