// Which locks go to Redlock: a method's `redlock` option (its tag's redlock=true, or
// configure({ defaults: { redlock: true } })), on the servers configure({ redlock }) names; every
// other lock stays on the one Redis. No Redlock servers and a method that asks for Redlock: a
// LockError at the call, never the single Redis instead. Bad server lists are refused at configure().
import test from 'ava';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { close, configure, defineLock, LockError, withLock } from 'lockweave';
import { startPrimaries, stopPrimaries, type Primaries } from '../helpers/redis-primaries';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';
import { until } from '../helpers/time';

let single: RedisServer;
let singleClient: Redis;
let primaries: Primaries;
let others: Primaries;

test.before(async () => {
  [single, primaries, others] = await Promise.all([startRedisServer(), startPrimaries(3), startPrimaries(3)]);
  singleClient = new Redis(single.url);
});
test.after.always(async () => {
  await close();
  singleClient?.disconnect();
  await Promise.all([single?.stop(), stopPrimaries(primaries), stopPrimaries(others)]);
});

const flag = (label: string) => uniqueId(label);
const heldOn = async (clients: Redis[], key: string) =>
  (await Promise.all(clients.map((client) => client.exists(key)))).filter((n) => n === 1).length;
// An acquire or release returns once a majority answered; the last server follows a moment later.
const majorityHolds = async (clients: Redis[], key: string) => (await heldOn(clients, key)) >= 2;
const noneHolds = (clients: Redis[], key: string) => until(async () => (await heldOn(clients, key)) === 0, 5_000);

test.serial(
  'without Redlock servers, a method that asks for Redlock fails at the call with a LockError; its body does not run',
  async (t) => {
    configure({ redis: single.url, redlock: undefined, defaults: { redlock: false } });
    let ran = false;
    const L = defineLock({ site: 'Orders.pay', businessFlag: flag('none'), redlock: true });
    const error = await t.throwsAsync(
      L.run('A', async () => (ran = true)),
      { instanceOf: LockError },
    );
    t.regex(error!.message, /Orders\.pay asks for Redlock \(redlock: true\).*no Redlock servers are configured/);
    await t.throwsAsync(
      withLock({ businessFlag: flag('none'), key: 'A', redlock: true, onFail: 'skip' }, () => (ran = true)),
      { instanceOf: LockError },
    );
    t.false(ran);
    t.is(await singleClient.dbsize(), 0, 'nothing was locked on the single server');
  },
);

test.serial(
  'configure({ redlock }) refuses fewer than 3 servers, duplicates, and anything not a URL or client, and keeps the settings it had',
  async (t) => {
    configure({ redis: single.url, redlock: primaries.urls });
    const [a, b, c] = primaries.urls;
    t.throws(() => configure({ redlock: [a, b] }), {
      instanceOf: TypeError,
      message: /at least 3 independent Redis servers.*got 2/,
    });
    t.throws(() => configure({ redlock: a as never }), { instanceOf: TypeError, message: /takes an array/ });
    t.throws(() => configure({ redlock: [a, b, a] }), {
      instanceOf: TypeError,
      message: /server 2 is the same server as server 0/,
    });
    t.throws(
      () =>
        configure({ redlock: [a, b, `${c.replace('127.0.0.1', '127.0.0.1')}/2`, a.replace(/\d+$/, (port) => port)] }),
      { instanceOf: TypeError, message: /same server/ },
    );
    t.throws(() => configure({ redlock: [a, b, 'http://127.0.0.1:6379'] }), {
      instanceOf: TypeError,
      message: /server 2 is not a redis:\/\/ or rediss:\/\/ URL/,
    });
    t.throws(() => configure({ redlock: [a, b, { host: '127.0.0.1' } as never] }), {
      instanceOf: TypeError,
      message: /server 2 is not a redis:\/\/ URL, an ioredis Redis or a node-redis client .*got an instance of Object/,
    });
    const client = new Redis(a, { lazyConnect: true });
    t.throws(() => configure({ redlock: [client, b, client] }), { instanceOf: TypeError, message: /same server/ });
    t.throws(() => configure({ redlock: [client, a, b] }), {
      instanceOf: TypeError,
      message: /server 1 is the same server as server 0/,
    });
    client.disconnect();
    // The refused calls changed nothing: Redlock locks still go to the first three.
    const L = defineLock({ businessFlag: flag('kept'), redlock: true });
    const lease = await L.acquire('A');
    t.true(await majorityHolds(primaries.clients, lease!.key));
    await lease!.release();
  },
);

test.serial(
  'per method: redlock: true locks on a majority of the Redlock servers, the others on the single Redis',
  async (t) => {
    configure({ redis: single.url, redlock: primaries.urls, defaults: { redlock: false } });
    const plain = defineLock({ businessFlag: flag('plain') });
    const quorum = defineLock({ businessFlag: flag('quorum'), redlock: true });
    const a = await plain.acquire('A');
    const b = await quorum.acquire('A');
    t.is(await singleClient.exists(a!.key), 1);
    await noneHolds(primaries.clients, a!.key);
    t.is(await singleClient.exists(b!.key), 0);
    t.true(await majorityHolds(primaries.clients, b!.key));
    await a!.release();
    await b!.release();
    await noneHolds(primaries.clients, b!.key);
  },
);

test.serial(
  'configure({ defaults: { redlock: true } }) sends every lock to Redlock, but for a method that says redlock: false',
  async (t) => {
    configure({ redis: single.url, redlock: primaries.urls, defaults: { redlock: true } });
    const byDefault = defineLock({ businessFlag: flag('default') });
    const optedOut = defineLock({ businessFlag: flag('optout'), redlock: false });
    const a = await byDefault.acquire('A');
    const b = await optedOut.acquire('A');
    t.true(await majorityHolds(primaries.clients, a!.key));
    t.is(await singleClient.exists(a!.key), 0);
    t.is(await singleClient.exists(b!.key), 1);
    await a!.release();
    await b!.release();
    t.throws(() => configure({ defaults: { redlock: 'yes' as never } }), {
      instanceOf: TypeError,
      message: /option redlock must be true or false/,
    });
    configure({ defaults: { redlock: false } });
  },
);

test.serial(
  'configure({ redlock }) again replaces the servers: a lease taken before is released where it was taken',
  async (t) => {
    configure({ redis: single.url, redlock: primaries.urls });
    const L = defineLock({ businessFlag: flag('replace'), redlock: true });
    const before = await L.acquire('A');
    configure({ redlock: others.urls });
    const after = await L.acquire('A');
    t.true(await majorityHolds(others.clients, after!.key));
    t.true(await majorityHolds(primaries.clients, before!.key));
    await before!.release();
    await noneHolds(primaries.clients, before!.key);
    await after!.release();
    configure({ redlock: undefined });
    await t.throwsAsync(L.acquire('A'), { instanceOf: LockError, message: /no Redlock servers are configured/ });
  },
);

test.serial(
  'clients passed in (ioredis, node-redis) stay open after close(); the connections the runtime opened for URLs close',
  async (t) => {
    const ioredisClient = new Redis(primaries.urls[0]);
    const nodeRedis = createClient({ url: primaries.urls[1] });
    await nodeRedis.connect();
    const clientsOn = async (index: number) =>
      ((await primaries.clients[index].client('LIST')) as string).trim().split('\n').length;
    const before = await clientsOn(2);
    configure({ redis: single.url, redlock: [ioredisClient, nodeRedis, primaries.urls[2]] });
    const L = defineLock({ businessFlag: flag('owned'), redlock: true });
    await L.run('A', async () => undefined);
    t.true((await clientsOn(2)) > before);
    await close();
    t.is(ioredisClient.status, 'ready');
    t.true(nodeRedis.isOpen);
    t.is(await ioredisClient.ping(), 'PONG');
    await until(async () => (await clientsOn(2)) === before, 5_000);
    ioredisClient.disconnect();
    nodeRedis.destroy();
  },
);

test.serial(
  'a call on the one Redis inside a Redlock body for the same key is another lock: it takes its own, not the Redlock one',
  async (t) => {
    configure({ redis: single.url, redlock: primaries.urls, defaults: { redlock: false } });
    const businessFlag = flag('both');
    const key = `LOCK_${businessFlag}_A`;
    const seen = await withLock({ businessFlag, key: 'A', redlock: true }, async () =>
      withLock({ businessFlag, key: 'A', retries: 0 }, async () => ({
        single: await singleClient.exists(key),
        redlock: await heldOn(primaries.clients, key),
      })),
    );
    // A Redlock acquire returns once a majority said yes; the third server may answer a moment later.
    t.is(seen!.single, 1, 'the inner call held the key on the one Redis');
    t.true(seen!.redlock >= 2, `while the Redlock lock held it on a majority (${seen!.redlock} of 3)`);
    // And the reverse: a Redlock call nested in a single-Redis body locks on Redlock.
    const reverse = await withLock({ businessFlag, key: 'A' }, async () =>
      withLock({ businessFlag, key: 'A', redlock: true, retries: 0 }, async () => heldOn(primaries.clients, key)),
    );
    t.true(reverse! >= 2);
  },
);
