// A database other than 0 holds on every connection, not only the first. ioredis SELECTs the
// database again on each reconnect and, refused, only emits an 'error' and goes on in database 0.
// The refusals met here: an ACL that no longer allows SELECT (the connection cut, so the client
// logs in again), and a failover to a server with fewer databases (a forwarder switched to another
// server, as a DNS change or a proxy does). In each, the next lock is refused, saying why, and
// nothing is locked in database 0 — for a URL the runtime opens and for an ioredis client of the
// user's, also one that is ready before its SELECT is answered (no ready check), and also while it
// reconnects. A client of the user's locks in its database again once its SELECT is allowed again.
import test from 'ava';
import { createConnection, createServer, type Socket } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';
import { close, configure, defineLock, LockAcquireError, RedisConnectionError } from 'lockweave';
import { commandSender } from '../../runtime/store/command-batch';
import { listenOnLoopback } from '../helpers/loopback';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/time';
import { databasesHolding, selectRefused } from './database-fixture';

const USER = 'selector';
const PASSWORD = 'Db-Reconnect-Pw7';

let server: RedisServer;
let fewer: RedisServer;
let admin: Redis;

test.before(async () => {
  [server, fewer] = await Promise.all([startRedisServer(), startRedisServer(['--databases', '2'])]);
  admin = new Redis(server.url);
  await admin.acl('SETUSER', USER, 'on', `>${PASSWORD}`, '~*', '&*', '+@all');
  const other = new Redis(fewer.url);
  await other.acl('SETUSER', USER, 'on', `>${PASSWORD}`, '~*', '&*', '+@all');
  other.disconnect();
});
test.after.always(async () => {
  await close();
  admin?.disconnect();
  await Promise.all([server?.stop(), fewer?.stop()]);
});

/** Whether `error` says retrying cannot help: its cause is a fatal RedisConnectionError. */
function fatalCause(error: Error): boolean {
  return error.cause instanceof RedisConnectionError && error.cause.fatal;
}

/** Locks `key` in `flag` once; where the key was while held, or the error. */
async function lockOnce(flag: string, at: RedisServer, count?: number): Promise<number[] | Error> {
  const lease = await defineLock({ businessFlag: flag, retries: 1, waitTime: 300 })
    .acquire('A')
    .catch((error: Error) => error);
  if (lease instanceof Error) return lease;
  try {
    return await databasesHolding(at, `LOCK_${flag}_A`, count);
  } finally {
    await lease.release();
  }
}

const userClient = (port: number, more: RedisOptions = {}) => {
  const client = new Redis({
    port,
    username: USER,
    password: PASSWORD,
    db: 3,
    retryStrategy: () => 50,
    autoResendUnfulfilledCommands: false,
    ...more,
  });
  client.on('error', () => undefined);
  return client;
};

const CASES: Array<[string, () => Redis | string]> = [
  ['a URL the runtime opens', () => `redis://${USER}:${PASSWORD}@127.0.0.1:${server.port}/3`],
  ['an ioredis client of the user', () => userClient(server.port)],
  [
    'an ioredis client of the user, ready before its SELECT is answered',
    () => userClient(server.port, { enableReadyCheck: false, disableClientInfo: true }),
  ],
];

for (const [index, [name, make]] of CASES.entries()) {
  test.serial(`${name}: a SELECT refused after a reconnect refuses the lock, nothing in database 0`, async (t) => {
    const redis = make();
    t.teardown(() => typeof redis !== 'string' && redis.disconnect());
    configure({ redis });
    const flag = `dbReconnect${index}`;
    t.deepEqual(await lockOnce(flag, server), [3]);
    const restore = await selectRefused(admin, USER);
    t.teardown(restore);
    // At once, while the client logs in again, and again once it is ready on database 0.
    for (const round of ['while it reconnects', 'once it is back']) {
      if (round === 'once it is back')
        await until(() => typeof redis === 'string' || redis.status === 'ready', { what: 'the client reconnected' });
      const outcome = await lockOnce(flag, server);
      t.true(outcome instanceof LockAcquireError, `${round}: ${JSON.stringify(outcome)}`);
      const error = outcome as LockAcquireError;
      // Refused for the database, not only for the cut (a lock tried during the reconnect may meet that first).
      if (round === 'once it is back' || /database/.test(error.message)) {
        t.regex(error.message, /it refused to select database 3, so commands would go to database 0: NOPERM/);
        t.true(fatalCause(error), error.message);
      }
    }
    t.deepEqual(await databasesHolding(server, `LOCK_${flag}_A`), []);
    await restore();
    if (typeof redis !== 'string') {
      // The user's client connects again by itself: its database is checked again, and it locks there.
      await until(async () => Array.isArray(await lockOnce(flag, server)), {
        what: 'a lock once SELECT is allowed again',
        timeoutMs: 20_000,
        everyMs: 200,
      });
      t.deepEqual(await lockOnce(flag, server), [3]);
    }
    await close();
  });
}

/** A TCP forwarder to `port` whose target can be switched (a failover, a DNS change): switching cuts its connections. */
async function switchableForwarder(port: number) {
  let target = port;
  const sockets = new Set<Socket>();
  const forwarder = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const { port: listening } = await listenOnLoopback(forwarder);
  return {
    port: listening,
    switchTo(next: number) {
      target = next;
      for (const socket of sockets) socket.destroy();
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => forwarder.close(() => resolve()));
    },
  };
}

for (const [name, make] of [
  ['a URL the runtime opens', (port: number) => `redis://${USER}:${PASSWORD}@127.0.0.1:${port}/3`],
  ['an ioredis client of the user', (port: number) => userClient(port)],
] as const) {
  test.serial(`${name}: after a failover to a server without the database, the lock is refused`, async (t) => {
    const forwarder = await switchableForwarder(server.port);
    t.teardown(() => forwarder.close());
    const redis = make(forwarder.port);
    t.teardown(() => typeof redis !== 'string' && redis.disconnect());
    configure({ redis });
    t.deepEqual(await lockOnce('dbFailover', server), [3]);
    forwarder.switchTo(fewer.port);
    // The first lock after the cut may fail for the cut; none may lock, and the refusal names the database.
    const outcomes: Array<number[] | Error> = [];
    await until(
      async () => {
        const outcome = await lockOnce('dbFailover', fewer, 2);
        outcomes.push(outcome);
        return !(outcome instanceof Error) || /database 3/.test(outcome.message);
      },
      { what: 'a refusal that names the database' },
    );
    t.true(
      outcomes.every((outcome) => outcome instanceof LockAcquireError),
      JSON.stringify(outcomes),
    );
    const error = outcomes[outcomes.length - 1] as LockAcquireError;
    t.regex(error.message, /it has no database 3: ERR DB index is out of range/);
    t.true(fatalCause(error), error.message);
    t.deepEqual(await databasesHolding(fewer, 'LOCK_dbFailover_A', 2), [], 'nothing locked in database 0');
    await close();
  });
}

test('the store hands ioredis no command for a database other than 0 to hold for its next connection', async (t) => {
  // Unchecked there: ioredis would write it after its own SELECT, refused or not. The health check
  // (redis-health.ts) sends commands only on a checked connection; the batch refuses the rest.
  const client = new Redis({ port: server.port, db: 3, lazyConnect: true });
  t.teardown(() => client.disconnect());
  const error = await t.throwsAsync(commandSender(client, 2_000).send('set', ['db-held', 'v']));
  t.regex(error.message, /Connection is closed/);
  t.is(client.status, 'wait', 'not even connected for it');
});
