// Release notices on Redis Cluster travel as sharded pub/sub: the release script SPUBLISHes on the
// key's shard channel, and a waiter's process SSUBSCRIBEs on the primary that serves the key's slot.
// Two stores on two Cluster clients of the test's own stand for two processes.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { NodeRedisLockStore, RedisLockStore, type LockStore, type PlaceInLine } from 'lockweave';
import { createCluster } from 'redis';
import { createCluster as createCluster5 } from 'redis5';
import { BINDING } from '../../runtime/store/lock-store';
import { releaseChannels } from '../../runtime/store/release-channel';
import { keysPerShard, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { redisServerVersion } from '../helpers/redis-server';
import { sleep } from '../helpers/time';

let cluster: RedisCluster;
const clients: Cluster[] = [];
const stores: LockStore[] = [];
const nodeRedisClusters: Array<{ destroy(): void }> = [];

/** A store on a node-redis cluster of either version, connected as a user would. */
type CreateCluster = (options: { rootNodes: Array<{ url: string }> }) => {
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
};

async function nodeRedisStore(create: CreateCluster): Promise<LockStore> {
  const client = create({ rootNodes: cluster.urls.map((url) => ({ url })) });
  client.on('error', () => undefined);
  await client.connect();
  nodeRedisClusters.push(client);
  const made = new NodeRedisLockStore(client as never);
  stores.push(made);
  return made;
}

function store(): LockStore {
  const client = new Cluster([...cluster.urls]);
  client.on('error', () => undefined);
  clients.push(client);
  const made = new RedisLockStore(client);
  stores.push(made);
  return made;
}

test.before(async (t) => {
  t.log(`server: ${redisServerVersion()}`);
  cluster = await startRedisCluster();
});
test.after.always(async () => {
  await Promise.all(stores.map((made) => made.close()));
  clients.forEach((client) => client.disconnect());
  nodeRedisClusters.forEach((client) => client.destroy());
  await cluster?.stop();
});

/** `promise`, failing with what it was doing in its message (ioredis's errors name no command). */
function step<T>(what: string, promise: Promise<T>): Promise<T> {
  return promise.catch((error: Error) => Promise.reject(new Error(`${what}: ${error.message}`, { cause: error })));
}

/** Resolves with the notice of `key`, or rejects after `ms`. */
function nextNotice(
  notices: Map<string, (passedTo: string | undefined) => void>,
  key: string,
  ms: number,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no notice for ${key} within ${ms} ms`)), ms);
    notices.set(key, (passedTo) => {
      clearTimeout(timer);
      notices.delete(key);
      resolve(passedTo);
    });
  });
}

for (const tagged of [false, true]) {
  test.serial(
    `a waiter in another process is told by a sharded notice, for keys in each of the 3 shards ${tagged ? 'with' : 'without'} a hash tag; nothing goes over the cluster-wide bus`,
    async (t) => {
      const [holder, waiter] = [store(), store()];
      const keys = keysPerShard((value) => `LOCK_notice_${value}`, tagged ? 'tag' : 'plain', 2, tagged)
        .flat()
        .map((value) => `LOCK_notice_${value}`);
      t.is(keys.length, 6);
      const heard = new Map<string, (passedTo: string | undefined) => void>();
      const publishedBefore = await step('bus counts', cluster.messagesSent('publish'));
      const shardBefore = await step('bus counts', cluster.messagesSent('publishshard'));
      for (const key of keys) {
        const channel = releaseChannels('lockweave:released:', true).of(key);
        const slots = await step(
          'CLUSTER KEYSLOT',
          Promise.all([channel, key].map((name) => cluster.nodes[0]!.admin.call('cluster', 'keyslot', name))),
        );
        t.is(Number(slots[0]), Number(slots[1]), `${channel} hashes to the slot of ${key}`);
        const holderToken = randomUUID();
        t.true(await step('holder tryAcquire', holder.tryAcquire(key, holderToken, 10_000)));
        await step(
          'waiter listen',
          waiter.listen(key, (noticed, passedTo) => heard.get(noticed)?.(passedTo)),
        );
        const place: PlaceInLine = { token: randomUUID(), leaseMs: 10_000, placeLastsMs: 5_000, place: undefined };
        t.false(
          await step('waiter tryAcquireInTurn', waiter.tryAcquireInTurn(key, place)),
          'the key is held: the waiter takes its place in line',
        );
        const passed = nextNotice(heard, key, 5_000);
        t.is(await step('holder release', holder.release(key, holderToken)), 'passed');
        t.is(await passed, place.token, `the notice of ${key} names the waiter it was passed to`);
        t.true(await step('waiter confirms', waiter.tryAcquireInTurn(key, place)), 'the waiter confirms its claim');
        // A token of the waiter's process (its tag: the channel its subscriber added for it) is
        // told on that process's channel of the key, in the key's slot too.
        const primary = await step('primary', cluster.primaryOf(key));
        const [ofProcess] = (await primary.admin.call('pubsub', 'shardchannels', `${channel}{*}`)) as string[];
        t.truthy(ofProcess, `the waiter's process SSUBSCRIBEd a channel of its own for ${key}`);
        t.is(Number(await primary.admin.call('cluster', 'keyslot', ofProcess!)), Number(slots[1]));
        const own: PlaceInLine = { ...place, token: `${ofProcess!.slice(-9, -1)}-0000-8000-8000-000000000001` };
        t.false(await step('waiter in line again', waiter.tryAcquireInTurn(key, own)));
        const passedHere = nextNotice(heard, key, 5_000);
        t.is(await step('release to it', waiter.release(key, place.token)), 'passed');
        // It came a moment ago, and the SPUBLISH reached its process's subscriber on the primary: it binds.
        t.is(
          await passedHere,
          BINDING + own.token,
          `the pass of ${key} reached the waiter's process on its own channel, bound`,
        );
        t.true(await step('waiter holds it', waiter.tryAcquireInTurn(key, own)));
        // Only a release that asks (Redlock's, whose waiters stand in no line) announces a free key.
        const freed = nextNotice(heard, key, 5_000);
        t.is(await step('waiter release', waiter.release(key, own.token, { announceFree: true })), 'freed');
        t.is(await freed, undefined, `a free ${key} is announced with an empty notice`);
        waiter.unlisten(key);
      }
      const published = (await cluster.messagesSent('publish')) - publishedBefore;
      const shard = (await cluster.messagesSent('publishshard')) - shardBefore;
      t.log(`cluster bus messages for ${keys.length * 2} releases: publish ${published}, publishshard ${shard}`);
      t.is(published, 0, 'no classic PUBLISH is broadcast to every node');
    },
  );
}

for (const [version, create] of [
  ['6', createCluster as unknown as CreateCluster],
  ['5', createCluster5 as unknown as CreateCluster],
] as const) {
  test.serial(
    `ioredis and node-redis ${version} cluster processes pass keys to each other with sharded notices, in each shard`,
    async (t) => {
      const ioredisStore = store();
      const nodeRedis = await nodeRedisStore(create);
      const keys = keysPerShard((value) => `LOCK_interop${version}_${value}`, 'k', 1)
        .flat()
        .map((value) => `LOCK_interop${version}_${value}`);
      for (const key of keys) {
        for (const [holder, waiter] of [
          [ioredisStore, nodeRedis],
          [nodeRedis, ioredisStore],
        ] as const) {
          const heard = new Map<string, (passedTo: string | undefined) => void>();
          const holderToken = randomUUID();
          t.true(await holder.tryAcquire(key, holderToken, 10_000));
          await waiter.listen(key, (noticed, passedTo) => heard.get(noticed)?.(passedTo));
          const place: PlaceInLine = { token: randomUUID(), leaseMs: 10_000, placeLastsMs: 5_000, place: undefined };
          t.false(await waiter.tryAcquireInTurn(key, place));
          const passed = nextNotice(heard, key, 5_000);
          t.is(await holder.release(key, holderToken), 'passed');
          t.is(await passed, place.token, `${key}: the notice crossed client families`);
          t.true(await waiter.tryAcquireInTurn(key, place));
          t.is(await waiter.release(key, place.token), 'freed');
          waiter.unlisten(key);
        }
      }
    },
  );
}

test.serial(
  'after its primary is SIGKILLed, a waiter listening for a key of that shard is subscribed on the promoted replica and hears its notices',
  async (t) => {
    const [holder, waiter] = [store(), store()];
    const [value] = keysPerShard((text) => `LOCK_failover_${text}`, 'failover', 1)[0]!;
    const key = `LOCK_failover_${value}`;
    const channel = releaseChannels('lockweave:released:', true).of(key);
    const heard = new Map<string, (passedTo: string | undefined) => void>();
    await waiter.listen(key, (noticed, passedTo) => heard.get(noticed)?.(passedTo));
    const { killedAt, promotion } = await cluster.killPrimary(await cluster.primaryOf(key));
    const { node: promoted, promotedAt } = await promotion;
    const subscribers = async () =>
      Number(((await promoted.admin.call('pubsub', 'shardnumsub', channel)) as [string, number])[1]);
    let subscribedAt: number | undefined;
    for (let poll = 0; poll < 1_500 && Date.now() < promotedAt + 30_000; poll++) {
      if ((await subscribers()) > 0) {
        subscribedAt = Date.now();
        break;
      }
      await sleep(20);
    }
    t.truthy(subscribedAt, `the waiter's process SSUBSCRIBEd ${channel} on the promoted replica`);
    // The holder's attempts find the new primary (MOVED) once the cluster is usable again.
    const holderToken = randomUUID();
    let took = false;
    for (let attempt = 0; attempt < 300 && !took && Date.now() < promotedAt + 30_000; attempt++) {
      took = (await holder.tryAcquire(key, holderToken, 10_000).catch(() => false)) === true;
      if (!took) await sleep(50);
    }
    t.true(took, 'the key is locked again on the promoted replica');
    const place: PlaceInLine = { token: randomUUID(), leaseMs: 10_000, placeLastsMs: 5_000, place: undefined };
    t.false(await waiter.tryAcquireInTurn(key, place));
    const passed = nextNotice(heard, key, 5_000);
    t.is(await holder.release(key, holderToken), 'passed');
    t.is(await passed, place.token, 'the notice reached the waiter');
    t.log(
      `kill -> promotion ${promotedAt - killedAt} ms; promotion -> subscribed on the new primary ${subscribedAt! - promotedAt} ms`,
    );
  },
);
