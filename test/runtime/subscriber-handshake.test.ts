// Subscribe commands asked while a subscriber connection is in its handshake wait for its end
// (pastHandshake, runtime/store/ioredis-client.ts), all on one promise: a 'ready' and a 'close'
// listener each would pile up while a paused Redis holds the handshake, and past ten Node emits a
// MaxListenersExceededWarning whose `emitter` is the connection — its options, password included,
// in whatever logs warnings. Checked on a real redis-server held in CLIENT PAUSE, and end to end
// with the runtime's own connection: many waiters while its subscriber reconnects into a pause.
// The same for commands that wait for a Redis Cluster that is not ready (clusterReady).
import test from 'ava';
import { inspect } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { close, configure, withLock } from 'lockweave';
import { clusterReady } from '../../runtime/store/cluster-primaries';
import { pastHandshake } from '../../runtime/store/ioredis-client';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { sleep, until } from '../helpers/time';

const PASSWORD = 'Handshake-Pangolin/Secret@9';

let server: RedisServer;
let admin: Redis;
const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);

test.before(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  await admin.config('SET', 'requirepass', PASSWORD);
  await admin.auth(PASSWORD);
  process.on('warning', onWarning);
});

test.after.always(async () => {
  process.off('warning', onWarning);
  await close();
  admin?.disconnect();
  await server?.stop();
});

test.serial('many subscribe commands during one stalled handshake add one ready and one close listener', async (t) => {
  await admin.client('PAUSE', 1500, 'ALL');
  const connection = new Redis({ port: server.port, host: '127.0.0.1', password: PASSWORD });
  connection.on('error', () => undefined);
  t.teardown(() => connection.disconnect());
  await until(() => connection.status === 'connect', { what: 'the connection in its handshake' });
  const before = { ready: connection.listenerCount('ready'), close: connection.listenerCount('close') };
  const waits = Array.from({ length: 50 }, () => pastHandshake(connection));
  t.true(
    connection.listenerCount('ready') - before.ready <= 1,
    `ready listeners: ${connection.listenerCount('ready')}`,
  );
  t.true(
    connection.listenerCount('close') - before.close <= 1,
    `close listeners: ${connection.listenerCount('close')}`,
  );
  await Promise.all(waits);
  t.is(connection.status, 'ready');
  // Its listeners went with the handshake (ioredis drops one of its own then too).
  t.true(connection.listenerCount('ready') <= before.ready);
  t.true(connection.listenerCount('close') <= before.close);
  // After the handshake: at once, and nothing added.
  const after = connection.listenerCount('ready') + connection.listenerCount('close');
  await pastHandshake(connection);
  t.is(connection.listenerCount('ready') + connection.listenerCount('close'), after);
  t.deepEqual(
    warnings.map((warning) => warning.name),
    [],
  );
});

test.serial(
  "the runtime's subscriber reconnecting into a paused Redis while 40 callers wait on 20 keys: no warning, no password",
  async (t) => {
    configure({
      redis: `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}`,
      defaults: { lockTime: 3000, waitTime: 300, retries: 20 },
    });
    const stopAt = Date.now() + 6000;
    let locked = 0;
    const worker = async (index: number) => {
      for (let round = 0; round < 10_000 && Date.now() < stopAt; round++) {
        try {
          await withLock({ businessFlag: 'handshake', key: `k${index % 20}` }, () => sleep(10));
          locked++;
        } catch {
          await sleep(20);
        }
      }
    };
    const workers = Array.from({ length: 40 }, (_, index) => worker(index));
    // Contention first, so that the subscriber is open and subscribed to many channels.
    await until(() => locked >= 40, { what: 'the callers under way', timeoutMs: 20_000 });
    // Its reconnect stalls in the handshake, while the waiters go on subscribing and unsubscribing.
    await admin.client('KILL', 'TYPE', 'pubsub');
    await admin.client('PAUSE', 2500, 'ALL');
    await Promise.all(workers);
    await close();
    const listenerWarnings = warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning');
    t.deepEqual(
      listenerWarnings.map((warning) => warning.message),
      [],
    );
    for (const warning of warnings) t.false(inspect(warning, { depth: 6 }).includes(PASSWORD));
  },
);

test.serial('commands waiting for a Cluster that is not ready share one ready listener', async (t) => {
  // A server without cluster support: the Cluster never gets ready, as in an outage.
  const cluster = new Cluster([{ host: '127.0.0.1', port: server.port }], {
    redisOptions: { password: PASSWORD },
    clusterRetryStrategy: () => 100,
  });
  cluster.on('error', () => undefined);
  t.teardown(() => cluster.disconnect());
  const before = cluster.listenerCount('ready');
  const waits = Array.from({ length: 50 }, () =>
    clusterReady(cluster).then(
      () => 'ready',
      (error: Error) => error.message,
    ),
  );
  t.true(cluster.listenerCount('ready') - before <= 1, `ready listeners: ${cluster.listenerCount('ready')}`);
  const outcomes = await Promise.all(waits);
  t.true(
    outcomes.every((outcome) => /not ready after/.test(outcome)),
    outcomes[0],
  );
  t.is(cluster.listenerCount('ready'), before);
  t.deepEqual(
    warnings.map((warning) => warning.name),
    [],
  );
});
