// Options from code are checked where they are given, with one rule for every store: what Redis
// would refuse, MemoryLockStore refuses too, so a unit test fails where production would.
import test from 'ava';
import { configure, defineLock, inspect, lock, MemoryLockStore, withLock } from 'lockweave';
import { createClient, createCluster } from 'redis';

test.serial(
  'a lockTime or waitTime that is not whole milliseconds is refused before any attempt, on the in-process store too',
  async (t) => {
    const store = new MemoryLockStore();
    configure({ store });
    for (const bad of [
      { lockTime: 1500.5 },
      { waitTime: 0.5 },
      { lockTime: 0 },
      { lockTime: Number.MAX_VALUE },
      { waitTime: Number.NaN },
    ]) {
      const error = await t.throwsAsync(
        withLock({ businessFlag: 'opts', key: 'k', ...bad }, () => 'ran'),
        { instanceOf: TypeError },
      );
      t.regex(error!.message, /must be a whole number of milliseconds > 0/, JSON.stringify(bad));
    }
    t.is(await store.holder('LOCK_opts_k'), undefined, 'nothing was locked');
    t.throws(() => configure({ store, defaults: { lockTime: 1500.5 } }), {
      message: /lockTime must be a whole number of milliseconds/,
    });
    await t.throwsAsync(lock({ businessFlag: 'opts', key: 'k', waitTime: 1.5 }), {
      message: /waitTime must be a whole number/,
    });
  },
);

test.serial(
  'redlock with fencing or replicas is refused wherever the options are given: the pair needs the one server that made the grant',
  async (t) => {
    configure({ store: new MemoryLockStore() });
    for (const bad of [
      { redlock: true, fencing: true },
      { redlock: true, replicas: 1 },
    ]) {
      const error = await t.throwsAsync(
        withLock({ businessFlag: 'opts', key: 'k', ...bad }, () => 'ran'),
        { instanceOf: TypeError },
      );
      t.regex(error!.message, /options redlock and (fencing|replicas) cannot be combined/, JSON.stringify(bad));
      t.throws(() => configure({ defaults: bad }), { message: /cannot be combined/ });
    }
    configure({ defaults: { redlock: true } });
    await t.throwsAsync(
      withLock({ businessFlag: 'opts', key: 'k', fencing: true }, () => 'ran'),
      { message: /options redlock and fencing cannot be combined/ },
    );
    configure({ defaults: { redlock: false } });
  },
);

test.serial('configure({ redis }) refuses a client it does not understand instead of reading it as options', (t) => {
  // The shape of a node-redis client: ioredis would take it for options and connect to 127.0.0.1:6379.
  class RedisClient {
    isOpen = true;
    async connect() {
      return this;
    }
    async sendCommand() {
      return 'OK';
    }
  }
  for (const redis of [new RedisClient(), new Map(), 6379, () => undefined]) {
    const error = t.throws(() => configure({ redis: redis as never }), { instanceOf: TypeError });
    t.regex(
      error!.message,
      /takes an ioredis Redis or Cluster, a node-redis client, a Valkey GLIDE client, a redis:\/\/ URL, or ioredis options; got /,
    );
  }
  t.regex(t.throws(() => configure({ redis: new RedisClient() as never }))!.message, /got an instance of RedisClient/);
  // node-redis itself: a client or cluster not connected yet is refused saying why.
  const notOpen = createClient({ url: 'redis://127.0.0.1:1' });
  t.regex(
    t.throws(() => configure({ redis: notOpen }), { instanceOf: TypeError })!.message,
    /not open: call `await client.connect\(\)`/,
  );
  const cluster = createCluster({ rootNodes: [{ url: 'redis://127.0.0.1:1' }] });
  t.regex(
    t.throws(() => configure({ redis: cluster as never }), { instanceOf: TypeError })!.message,
    /node-redis cluster is not open: call `await cluster.connect\(\)`/,
  );
  t.notThrows(() => configure({ redis: { host: '127.0.0.1', port: 1, lazyConnect: true } }));
  t.notThrows(() => configure({ redis: 'redis://127.0.0.1:1' }));
  configure({ store: new MemoryLockStore() });
});

test.serial(
  'a misspelt option of withLock(), lock(), defineLock() or inspect() is refused, naming the one it likely meant',
  async (t) => {
    const store = new MemoryLockStore();
    configure({ store });
    // Each would have locked on the one Redis (redLock), under LOCK_ (prefx), or with the default lease.
    const misspelt: Array<[Record<string, unknown>, RegExp]> = [
      [{ redLock: true }, /redLock is not a request key or a lock option; did you mean redlock\?/],
      [{ prefx: 'APP_' }, /prefx is not a request key or a lock option; did you mean prefix\?/],
      [{ lockTme: 100 }, /lockTme is not a request key or a lock option; did you mean lockTime\?/],
    ];
    for (const [extra, message] of misspelt) {
      const request = { businessFlag: 'opts', key: 'typo', ...extra } as never;
      await t.throwsAsync(
        withLock(request, () => 'ran'),
        { instanceOf: TypeError, message },
        JSON.stringify(extra),
      );
      await t.throwsAsync(lock(request), { instanceOf: TypeError, message });
    }
    t.is(await store.holder('LOCK_opts_typo'), undefined, 'nothing was locked');
    t.throws(() => defineLock({ site: 'Orders.pay', businessFlag: 'opts', redLock: true } as never), {
      instanceOf: TypeError,
      message: /defineLock\(Orders\.pay\): redLock is not a lock option; did you mean redlock\?/,
    });
    await t.throwsAsync(inspect({ businessFlag: 'opts', key: 'typo', redLock: true } as never), {
      instanceOf: TypeError,
      message: /inspect\(\): redLock is not a request key or a lock option; did you mean redlock\?/,
    });
    await t.throwsAsync(
      withLock(null as never, () => 'ran'),
      { instanceOf: TypeError, message: /takes a request object/ },
    );
  },
);
