// A client the user passes in keeps its own options; the store makes up for the ones a lock
// cannot do without (a bound on every command) and says which it cannot make up for.
import test from 'ava';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { createClient, RESP_TYPES } from 'redis';
import { close, configure, LockAcquireError, withLock } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';
import { startSingleNodeCluster } from '../helpers/single-node-cluster';

let server: RedisServer;
const clients: Redis[] = [];
const warnings: Error[] = [];
const onWarning = (warning: Error) => {
  if ((warning as { code?: string }).code === 'LOCKWEAVE_CLIENT_SETTINGS') warnings.push(warning);
};

test.before(async () => {
  server = await startRedisServer();
  process.on('warning', onWarning);
});

test.after.always(async () => {
  process.off('warning', onWarning);
  await close();
  for (const client of clients) client.disconnect();
  await server?.stop();
});

function client(options: RedisOptions = {}): Redis {
  const made = new Redis({ host: server.host, port: server.port, ...options });
  made.on('error', () => undefined);
  clients.push(made);
  return made;
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

/** The store is made at the first lock after configure(), and the client checked then. */
async function configureAndLock(redis: Redis): Promise<void> {
  configure({ redis });
  await withLock({ businessFlag: uniqueId('settings'), key: 'k', retries: 0 }, async () => undefined);
}

test.serial(
  'a client with ioredis defaults (no command timeout) cannot hold a caller past its attempts when Redis stops answering',
  async (t) => {
    configure({ redis: client() });
    const businessFlag = uniqueId('paused');
    await withLock({ businessFlag, key: 'warm', retries: 0 }, async () => undefined);
    process.kill(server.pid, 'SIGSTOP');
    try {
      // Without the store's own bound this call never settles (ioredis waits for the answer forever).
      const outcome = await Promise.race([
        withLock({ businessFlag, key: 'k', retries: 1, waitTime: 200 }, async () => 'ran').catch(
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 30 s'), 30_000).unref()),
      ]);
      t.true(outcome instanceof LockAcquireError, String(outcome));
      // The store's 2 s command bound, or the caller's own deadline first (lock/acquire.ts): either way it names the server.
      t.regex(
        String((outcome as LockAcquireError).cause),
        /unreachable: (Command timed out after 2000 ms|an attempt timed out)/,
      );
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
  },
);

test.serial('a client that re-sends unanswered commands is warned about once; one that does not, never', async (t) => {
  warnings.length = 0;
  const resending = client();
  await configureAndLock(resending);
  await configureAndLock(resending);
  await configureAndLock(client({ autoResendUnfulfilledCommands: false }));
  await nextTick();
  t.is(warnings.length, 1);
  t.regex(warnings[0].message, /autoResendUnfulfilledCommands: false/);
});

test.serial(
  "a Cluster's retryDelayOnFailover: 0, the runtime's own value, is taken: in options the runtime opens and on a Cluster of the user's",
  async (t) => {
    // The refusal (owned-connection.ts) is of any other value only: 0 is what the runtime sets itself.
    const cluster = await startSingleNodeCluster();
    const look = new Redis(cluster.url);
    const own = new Cluster([{ host: cluster.host, port: cluster.port }], {
      retryDelayOnFailover: 0,
      redisOptions: { autoResendUnfulfilledCommands: false },
    });
    own.on('error', () => undefined);
    t.teardown(async () => {
      await close();
      own.disconnect();
      look.disconnect();
      await cluster.stop();
    });
    warnings.length = 0;
    for (const redis of [{ cluster: [cluster.url], clusterOptions: { retryDelayOnFailover: 0 } }, own]) {
      t.notThrows(() => configure({ redis }));
      const key = uniqueId('failover');
      const held = await withLock({ businessFlag: 'settings', key, retries: 0 }, () =>
        look.exists(`LOCK_settings_${key}`),
      );
      t.is(held, 1, 'locked on the cluster');
    }
    await nextTick();
    t.deepEqual(warnings, [], 'nothing to warn about either');
  },
);

test.serial(
  'a client whose integer replies come as strings is refused at configure(), on its own or as a Redlock server',
  (t) => {
    // Its replies would be misread: a renewal that held as lost, a release that worked as failed.
    const stringy = client({ stringNumbers: true, lazyConnect: true });
    t.throws(() => configure({ redis: stringy }), {
      instanceOf: TypeError,
      message: /configure\(\{ redis \}\): a client with stringNumbers is refused\. With integer replies as strings/,
    });
    // Three servers as configure() tells them apart; nothing connects (lazyConnect) before it refuses.
    const at = (port: number) => client({ port, lazyConnect: true });
    t.throws(() => configure({ redlock: [at(server.port + 1), stringy, at(server.port + 2)] }), {
      instanceOf: TypeError,
      message: /configure\(\{ redlock \}\): server 1: a client with stringNumbers is refused/,
    });
  },
);

test.serial("a client its Sentinels point at a replica (role: 'slave') is refused at configure()", (t) => {
  // A lock is a write: on a writable replica it would be taken where no other process looks.
  const replica = new Redis({
    sentinels: [{ host: '127.0.0.1', port: server.port }],
    name: 'mymaster',
    role: 'slave',
    lazyConnect: true,
  });
  t.teardown(() => replica.disconnect());
  t.throws(() => configure({ redis: replica }), {
    instanceOf: TypeError,
    message:
      /configure\(\{ redis \}\): a client made with role: 'slave' connects to a replica, but locks are taken on the primary/,
  });
});

test.serial(
  'stringNumbers as ioredis reads it (any truthy value), and a node-redis type mapping of integers, are refused alike',
  async (t) => {
    t.throws(() => configure({ redis: client({ stringNumbers: 1 as never, lazyConnect: true }) }), {
      instanceOf: TypeError,
      message: /a client with stringNumbers is refused/,
    });
    const plain = await createClient({ url: server.url }).connect();
    const mappedInOptions = await createClient({
      url: server.url,
      commandOptions: { typeMapping: { [RESP_TYPES.NUMBER]: String } },
    }).connect();
    try {
      for (const mapped of [plain.withTypeMapping({ [RESP_TYPES.NUMBER]: String }), mappedInOptions])
        t.throws(() => configure({ redis: mapped as never }), {
          instanceOf: TypeError,
          message:
            /a node-redis client whose type mapping turns integer replies \(RESP_TYPES\.NUMBER\) into another type is refused/,
        });
    } finally {
      plain.destroy();
      mappedInOptions.destroy();
    }
  },
);
