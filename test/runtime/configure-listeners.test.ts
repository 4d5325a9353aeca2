// configure() called again and again with the same client of the user's (a test's beforeEach, a
// module set up again) leaves no listener of lockweave's on that client: each store takes its own
// off when it closes. Left behind, they kept every closed store reachable, and past ten Node warned
// with the client — its options, password included — as the warning's `emitter`.
// ioredis (a client and a Cluster) and node-redis, each locking after every configure().
import test from 'ava';
import { Cluster, Redis } from 'ioredis';
import { createClient } from 'redis';
import { close, configure, defineLock } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { startSingleNodeCluster } from '../helpers/single-node-cluster';

const CONFIGURES = 20;

let server: RedisServer;
let clusterNode: RedisServer;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

test.before(async () => {
  [server, clusterNode] = await Promise.all([startRedisServer(), startSingleNodeCluster()]);
  process.on('warning', onWarning);
});
test.after.always(async () => {
  process.off('warning', onWarning);
  await close();
  await Promise.all([server?.stop(), clusterNode?.stop()]);
});

interface Emitter {
  eventNames(): Array<string | symbol>;
  listenerCount(event: string | symbol): number;
}

/** How many listeners `client` has of each event it has any of. */
function listenerCounts(client: Emitter): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of client.eventNames()) counts[String(event)] = client.listenerCount(event);
  return counts;
}

/** Configures `client` CONFIGURES times, locking once after each; the listener counts after the first and the last. */
async function configureAgainAndAgain(client: object & Emitter, flag: string) {
  const lock = defineLock({ businessFlag: flag, retries: 0 });
  let afterFirst: Record<string, number> | undefined;
  for (let round = 0; round < CONFIGURES; round++) {
    configure({ redis: client as Redis });
    const lease = await lock.acquire(`k${round}`);
    await lease.release();
    afterFirst ??= listenerCounts(client);
  }
  return { afterFirst, afterLast: listenerCounts(client) };
}

const FAMILIES: Array<{ name: string; connect(): Promise<{ client: object & Emitter; end(): Promise<void> }> }> = [
  {
    name: 'an ioredis client',
    async connect() {
      const client = new Redis({ port: server.port, autoResendUnfulfilledCommands: false });
      await client.ping();
      return { client, end: async () => client.disconnect() };
    },
  },
  {
    name: 'an ioredis Cluster',
    async connect() {
      const client = new Cluster([{ host: '127.0.0.1', port: clusterNode.port }], {
        redisOptions: { autoResendUnfulfilledCommands: false },
      });
      await client.ping();
      return { client, end: async () => client.disconnect() };
    },
  },
  {
    name: 'a node-redis client',
    async connect() {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      return { client: client as unknown as object & Emitter, end: async () => client.destroy() };
    },
  },
];

for (const [index, family] of FAMILIES.entries()) {
  test.serial(`${family.name}: configured ${CONFIGURES} times, keeps only its own listeners`, async (t) => {
    const { client, end } = await family.connect();
    t.teardown(end);
    const before = listenerCounts(client);
    const { afterFirst, afterLast } = await configureAgainAndAgain(client, `listeners${index}`);
    // The store in use listens; the ones configure() replaced listen no more.
    t.deepEqual(afterLast, afterFirst);
    await close();
    t.deepEqual(listenerCounts(client), before);
    t.deepEqual(
      warnings.map((warning) => `${warning.name}: ${warning.message}`),
      [],
    );
  });
}
