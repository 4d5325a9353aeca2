// The database of an ioredis client is the one it selected last, with `client.select()`, not only
// its `db` option: that is the one ioredis SELECTs again once each new connection is ready. When the
// server refuses that SELECT (here an ACL that no longer allows it, the connection cut so the client
// logs in again), the next lock is refused, nothing is locked in another database, and ioredis's
// own SELECT — a promise it drops — is no unhandled rejection in the user's process. Covered: a
// client on database 3 by `select(3)`, one back on database 0 by `select(0)` after `db: 3` (ioredis
// SELECTs 3 in each handshake, then 0), a `select()` after configure() moving the locks with it, and
// locks asked while a client on database 5 by `select(5)` reconnects: ioredis writes the commands it
// held for the new connection before its SELECT of 5, so none may be held, or it locks in database 0.
import test from 'ava';
import { Redis, type RedisOptions } from 'ioredis';
import { close, configure, defineLock, LockAcquireError, RedisConnectionError } from 'lockweave';
import { commandSender } from '../../runtime/store/command-batch';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/time';
import { databasesHolding, selectRefused } from './database-fixture';

const USER = 'chooser';
const PASSWORD = 'Select-Method-Pw7';

let server: RedisServer;
let admin: Redis;
/** Rejections nobody handled, in this process: ioredis's SELECT after a reconnect must not be one. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

test.before(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  await admin.acl('SETUSER', USER, 'on', `>${PASSWORD}`, '~*', '&*', '+@all');
  process.on('unhandledRejection', onUnhandled);
});
test.after.always(async () => {
  process.off('unhandledRejection', onUnhandled);
  await close();
  admin?.disconnect();
  await server?.stop();
});

/** Locks `flag`'s key A once: the databases that held it while held, or the error. */
async function lockOnce(flag: string): Promise<number[] | Error> {
  const lease = await defineLock({ businessFlag: flag, retries: 1, waitTime: 300 })
    .acquire('A')
    .catch((error: Error) => error);
  if (lease instanceof Error) return lease;
  try {
    return await databasesHolding(server, `LOCK_${flag}_A`);
  } finally {
    await lease.release();
  }
}

/** A client of the user's, as logged in by USER; reconnecting quickly, re-sending nothing. */
function userClient(more: RedisOptions = {}): Redis {
  const client = new Redis({
    port: server.port,
    username: USER,
    password: PASSWORD,
    retryStrategy: () => 50,
    autoResendUnfulfilledCommands: false,
    ...more,
  });
  client.on('error', () => undefined);
  return client;
}

const CASES: Array<{ name: string; options: RedisOptions; select: number; refused: RegExp }> = [
  {
    name: 'a client on database 3 by select(3)',
    options: {},
    select: 3,
    refused: /it refused to select database 3, so commands would go to database 0: NOPERM/,
  },
  {
    name: 'a client on database 0 by select(0) after db: 3',
    options: { db: 3 },
    select: 0,
    // Whichever SELECT of the new connection is refused first: ioredis's own of its db option, or the
    // store's check of the database the client selected since.
    refused:
      /it refused to select database (?:0, so commands could go to database 3 .*|3, so commands would go to database 0): NOPERM/,
  },
];

for (const [index, { name, options, select, refused }] of CASES.entries()) {
  test.serial(`${name}: locks there; a SELECT refused after a reconnect refuses the lock`, async (t) => {
    const client = userClient(options);
    t.teardown(() => client.disconnect());
    await client.select(select);
    configure({ redis: client });
    const flag = `selectMethod${index}`;
    t.deepEqual(await lockOnce(flag), [select]);
    // The cut connection must be seen closed before 'ready' can mean the new one.
    const closed = new Promise((resolve) => client.once('close', resolve));
    const restore = await selectRefused(admin, USER);
    t.teardown(restore);
    await closed;
    await until(() => client.status === 'ready', { what: 'the client reconnected' });
    const outcome = await lockOnce(flag);
    t.true(outcome instanceof LockAcquireError, JSON.stringify(outcome));
    const error = outcome as LockAcquireError;
    t.regex(error.message, refused);
    t.true(error.cause instanceof RedisConnectionError && error.cause.fatal, error.message);
    t.deepEqual(await databasesHolding(server, `LOCK_${flag}_A`), []);
    // ioredis's SELECT at 'ready' was answered before the lock's own check: its refusal was heard by now.
    await new Promise((resolve) => setImmediate(resolve));
    t.deepEqual(unhandled, []);
    await restore();
    // The client connects again by itself and selects its database again: the locks go there again.
    await until(async () => Array.isArray(await lockOnce(flag)), {
      what: 'a lock once SELECT is allowed again',
      timeoutMs: 20_000,
      everyMs: 200,
    });
    t.deepEqual(await lockOnce(flag), [select]);
    await close();
  });
}

test.serial('a select() after configure() moves the locks to that database, checked', async (t) => {
  const client = userClient();
  t.teardown(() => client.disconnect());
  configure({ redis: client });
  t.deepEqual(await lockOnce('selectLater'), [0]);
  await client.select(5);
  t.deepEqual(await lockOnce('selectLater'), [5]);
  // A database the server does not have: ioredis takes it as the client's, the server refuses it.
  await t.throwsAsync(client.select(99));
  const outcome = await lockOnce('selectLater');
  t.true(outcome instanceof LockAcquireError, JSON.stringify(outcome));
  t.regex((outcome as Error).message, /it has no database 99/);
  t.deepEqual(await databasesHolding(server, 'LOCK_selectLater_A'), []);
  t.deepEqual(unhandled, []);
  await close();
});

/** The keys of database 0 that start with `prefix`: where a lock of a client on database 5 must never be. */
async function inDatabaseZero(prefix: string): Promise<string[]> {
  return admin.keys(`${prefix}*`);
}

test.serial(
  'a client on database 5 by select(5): locks asked while it reconnects go there or fail, never to 0',
  async (t) => {
    const client = userClient();
    t.teardown(() => client.disconnect());
    await client.select(5);
    configure({ redis: client });
    const outcomes: Array<number[] | Error> = [];
    for (let round = 0; round < 3; round++) {
      // A lock asked at each step of the reconnect: the cut seen, the new connection's handshake, ready.
      const asked: Array<Promise<number[] | Error>> = [];
      const steps = ['close', 'connect', 'ready'] as const;
      for (const step of steps) client.once(step, () => asked.push(lockOnce(`selectReconnect${round}${step}`)));
      await admin.client('KILL', 'USER', USER);
      await until(() => asked.length === steps.length, { what: 'a lock asked at each step of the reconnect' });
      outcomes.push(...(await Promise.all(asked)));
    }
    for (const outcome of outcomes)
      if (outcome instanceof Error) t.true(outcome instanceof LockAcquireError, outcome.stack);
      else t.deepEqual(outcome, [5]);
    t.deepEqual(await inDatabaseZero('LOCK_selectReconnect'), []);
    t.deepEqual(await lockOnce('selectReconnect'), [5]);
    t.deepEqual(unhandled, []);
    await close();
  },
);

test.serial(
  'the store hands ioredis no command to hold across a reconnect of a client moved by select()',
  async (t) => {
    // Asked in the new connection's handshake, a command is held for it, and ioredis writes it as the
    // connection is ready — before its SELECT of 5. The store's own check (redis-health.ts) stands in
    // front of the batch, so the batch is asked here alone.
    const client = userClient();
    t.teardown(() => client.disconnect());
    await client.select(5);
    const sender = commandSender(client, 2_000);
    const outcome = new Promise<unknown>((resolve) => {
      client.once('connect', () => {
        sender.send('set', ['selectHeld', 'v']).then(resolve, resolve);
      });
    });
    await admin.client('KILL', 'USER', USER);
    const reply = await outcome;
    await until(() => client.status === 'ready', { what: 'the client reconnected' });
    // The SET, had it been held, was written as the connection got ready: it is in its database by now.
    t.is(await client.ping(), 'PONG');
    t.deepEqual(await inDatabaseZero('selectHeld'), []);
    if (reply instanceof Error) t.regex(reply.message, /Connection is closed/);
    else t.deepEqual(await databasesHolding(server, 'selectHeld'), [5]);
  },
);
