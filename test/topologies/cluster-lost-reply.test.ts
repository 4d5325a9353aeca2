// Fault kind: one reply lost on a Cluster node's connection that stays open (a proxy in front of each
// node, reached through ioredis's natMap; the proxy's dropNextReply), as test/faults/lost-reply.test.ts
// does on one server. Every later reply on that connection would answer the command sent before
// it. A batch's commands on each node are followed there by a PING with a nonce, and no reply is used
// before it came back with its own (command-batch.ts, writePairedOnNodes): the held key is never
// entered, whether asked for after the lost command gave up or while it still waits, and free keys
// lock again once ioredis has made the node's connection again. The same through a node-redis
// cluster (5 and 6; the proxies reached through its nodeAddressMap), whose lock commands go on each
// primary's node client with a PING per tick (node-redis-cluster.ts): node-redis connects again.
import test from 'ava';
import { Cluster } from 'ioredis';
import { close, configure, defineLock, withLock } from 'lockweave';
import { createCluster } from 'redis';
import { createCluster as createCluster5 } from 'redis5';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { keysPerShard, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { eventually, sleep } from '../helpers/time';

const HOLDERS_TOKEN = 'other-holders-token';
const RECOVERY_MS = 10_000;
const businessFlag = 'clusterLostReply';

let cluster: RedisCluster;
let proxies: FaultProxy[] = [];
let look: Cluster;

test.before(async () => {
  cluster = await startRedisCluster();
  proxies = await Promise.all(
    cluster.nodes.map((node) => startFaultProxy({ host: node.server.host, port: node.server.port })),
  );
  look = new Cluster([...cluster.urls]);
  look.on('error', () => undefined);
});

test.after.always(async () => {
  await close();
  look?.disconnect();
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await cluster?.stop();
});

const outcome = (call: Promise<unknown>) =>
  call.then(
    (value) => `resolved ${String(value)}`,
    (error: Error) => `${error.name}: ${error.message}`,
  );

type NodeAddresses = Record<string, { host: string; port: number }>;
type NodeRedisCluster = {
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
};
type CreateCluster = (options: {
  rootNodes: Array<{ url: string }>;
  nodeAddressMap: NodeAddresses;
}) => NodeRedisCluster;

/** A client through the proxies (`nodes` maps each node's address to its proxy), and how to end it. */
const clients: Record<string, (nodes: NodeAddresses) => Promise<{ client: unknown; end: () => void }>> = {
  'an ioredis Cluster': async (natMap) => {
    const client = new Cluster([{ host: '127.0.0.1', port: proxies[0]!.port }], {
      natMap,
      redisOptions: { autoResendUnfulfilledCommands: false },
    });
    client.on('error', () => undefined);
    return { client, end: () => client.disconnect() };
  },
  'a node-redis 6 cluster': (nodes) => nodeRedis(createCluster as never, nodes),
  'a node-redis 5 cluster': (nodes) => nodeRedis(createCluster5 as never, nodes),
};

async function nodeRedis(create: CreateCluster, nodeAddressMap: NodeAddresses) {
  const client = create({ rootNodes: [{ url: proxies[0]!.url }], nodeAddressMap });
  client.on('error', () => undefined);
  await client.connect();
  return { client, end: () => client.destroy() };
}

for (const [name, connect] of Object.entries(clients))
  for (const racing of [false, true]) {
    test.serial(
      `${name}: after a lost reply on a node, a held key there is never entered${racing ? ', asked for while the lost reply is awaited' : ''}; free keys lock again`,
      async (t) => {
        // Every node as the client sees it is the proxy in front of it.
        const nodes = Object.fromEntries(
          cluster.nodes.map((node, index) => [
            `${node.server.host}:${node.server.port}`,
            { host: '127.0.0.1', port: proxies[index]!.port },
          ]),
        );
        const { client, end } = await connect(nodes);
        t.teardown(async () => {
          await close();
          end();
        });
        configure({ redis: client as never });

        const keyFor = (value: string) => defineLock({ businessFlag }).keyFor(value);
        // Keys of one primary: the lost one, the held one and the free ones.
        const [values] = keysPerShard(keyFor, `lost-${name}-${racing}`, 6);
        const [lostValue, heldValue, freeValue, freeAgainValue, ...afterValues] = values!;
        const primary = await cluster.primaryOf(keyFor(heldValue!));
        const proxy = proxies[cluster.nodes.indexOf(primary)]!;
        const request = (value: string) => ({ businessFlag, key: value, lockTime: 10_000, retries: 0 });

        t.is(await outcome(withLock(request(afterValues[0]!), async () => 'ok')), 'resolved ok');
        await look.set(keyFor(heldValue!), HOLDERS_TOKEN, 'PX', 30_000);

        const commandConnections = proxy.carrying(/^SET$/);
        t.is(commandConnections.length, 1, "one connection to the key's primary carries the lock commands");
        commandConnections[0]!.dropNextReply();
        const losing = outcome(withLock(request(lostValue!), async () => 'ok'));
        if (!racing) {
          t.regex(await losing, /^LockAcquireError/);
          await sleep(300);
        } else await sleep(200);

        const heldAndFree = async (free: string) => {
          let heldBodyRan = false;
          const [held, freed] = await Promise.all([
            outcome(
              withLock(request(heldValue!), async () => {
                heldBodyRan = true;
                return 'held';
              }),
            ),
            outcome(withLock(request(free), async () => 'free')),
          ]);
          return { held, freed, heldBodyRan };
        };
        const first = await heldAndFree(freeValue!);
        t.log(`held key: ${first.held}; free key: ${first.freed}`);
        t.false(first.heldBodyRan, 'the body on the held key did not run');
        t.regex(first.held, /^LockAcquireError/);
        if (racing) t.regex(await losing, /^LockAcquireError/);

        let round = 1;
        const recovered = await eventually(
          async () =>
            (await outcome(withLock(request(`${afterValues[round++ % afterValues.length]}`), async () => 'ok'))) ===
            'resolved ok',
          { timeoutMs: RECOVERY_MS, everyMs: 100 },
        );
        t.true(recovered, `a free key locked again within ${RECOVERY_MS} ms`);
        t.is(await look.get(keyFor(heldValue!)), HOLDERS_TOKEN, "the holder's token is untouched");
        const again = await heldAndFree(freeAgainValue!);
        t.false(again.heldBodyRan);
        t.regex(again.held, /^LockAcquireError/);
        t.is(again.freed, 'resolved free');
      },
    );
  }
