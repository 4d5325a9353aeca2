// A database other than 0 is checked with a SELECT of lockweave's own before a connection's first
// lock command. Every error reply to that SELECT refuses the lock; only a server busy for now
// refuses the one lock and lets the next check again. Nothing is ever locked in database 0. Each
// reply here is a real server's: an ACL without SELECT (NOPERM), a server with fewer databases, a
// server whose SELECT was renamed away, a cluster node (no SELECT in cluster mode), and a server
// running a long script (BUSY). The other replies of a server busy for now never answer a SELECT:
// Redis and Valkey serve it while loading (no LOADING) and on a replica cut from its primary (no
// MASTERDOWN), and TRYAGAIN is a Cluster's answer to a multi-key command.
// And the check costs one SELECT per connection, not one per lock.
import test from 'ava';
import { Redis, type RedisOptions } from 'ioredis';
import { close, configure, defineLock, LockAcquireError, RedisConnectionError } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { startSingleNodeCluster } from '../helpers/single-node-cluster';
import { until } from '../helpers/time';
import { databasesHolding } from './database-fixture';

const USER = 'noselect';
const PASSWORD = 'No-Select-Pw7';
/** Past this, a server running a script answers other clients BUSY (before it, it does not answer them). */
const BUSY_AFTER_MS = 100;

let server: RedisServer;
let fewer: RedisServer;
let renamed: RedisServer;
let clusterNode: RedisServer;
let admin: Redis;

test.before(async () => {
  [server, fewer, renamed, clusterNode] = await Promise.all([
    startRedisServer(['--busy-reply-threshold', String(BUSY_AFTER_MS)]),
    startRedisServer(['--databases', '2']),
    startRedisServer(['--rename-command', 'SELECT', '']),
    startSingleNodeCluster(),
  ]);
  admin = new Redis(server.url);
  await admin.acl('SETUSER', USER, 'on', `>${PASSWORD}`, '~*', '&*', '+@all', '-select');
});
test.after.always(async () => {
  await close();
  admin?.disconnect();
  await Promise.all([server?.stop(), fewer?.stop(), renamed?.stop(), clusterNode?.stop()]);
});

/** The databases of `at` that hold any key, by INFO keyspace (which needs no SELECT). */
async function databasesWithKeys(at: RedisServer): Promise<string[]> {
  const look = new Redis(at.url);
  try {
    return [...(await look.info('keyspace')).matchAll(/^(db\d+):keys=/gm)].map((match) => match[1]!);
  } finally {
    look.disconnect();
  }
}

/** Locks `flag`'s key A once and releases it: the databases of `at` that held it, or the error. */
async function lockOnce(flag: string, at: RedisServer): Promise<number[] | Error> {
  const lease = await defineLock({ businessFlag: flag, retries: 0 })
    .acquire('A')
    .catch((error: Error) => error);
  if (lease instanceof Error) return lease;
  try {
    return await databasesHolding(at, `LOCK_${flag}_A`);
  } finally {
    await lease.release();
  }
}

function userClient(url: string, more: RedisOptions = {}): Redis {
  const client = new Redis(url, { retryStrategy: () => 50, autoResendUnfulfilledCommands: false, ...more });
  client.on('error', () => undefined);
  return client;
}

/** The URL the runtime opens, or an ioredis client of the user's made with it. */
const MAKERS: Array<[string, (url: string) => string | Redis]> = [
  ['a URL the runtime opens', (url) => url],
  ['an ioredis client of the user', (url) => userClient(url)],
];

/** A server's error reply to SELECT 3 that refuses the database for good, and how the refusal reads. */
const REFUSALS: Array<[string, () => { at: RedisServer; url: string }, RegExp]> = [
  [
    'NOPERM (an ACL user without SELECT)',
    () => ({ at: server, url: `redis://${USER}:${PASSWORD}@127.0.0.1:${server.port}/3` }),
    /it refused to select database 3, so commands would go to database 0: NOPERM/,
  ],
  [
    'ERR DB index is out of range (2 databases)',
    () => ({ at: fewer, url: `${fewer.url}/3` }),
    /it has no database 3: ERR DB index is out of range/,
  ],
  [
    'ERR unknown command (SELECT renamed away)',
    () => ({ at: renamed, url: `${renamed.url}/3` }),
    /it refused to select database 3, so commands would go to database 0: ERR unknown command/,
  ],
  [
    'ERR SELECT is not allowed in cluster mode (a cluster node)',
    () => ({ at: clusterNode, url: `${clusterNode.url}/3` }),
    /it refused to select database 3, so commands would go to database 0: ERR SELECT is not allowed in cluster mode/,
  ],
];

for (const [reply, place, refusal] of REFUSALS) {
  for (const [index, [name, make]] of MAKERS.entries()) {
    test.serial(`${reply}, ${name}: the lock is refused for good, nothing written in database 0`, async (t) => {
      const { at, url } = place();
      const redis = make(url);
      t.teardown(() => typeof redis !== 'string' && redis.disconnect());
      configure({ redis });
      const flag = `selectRefused${index}`;
      for (const attempt of ['the first lock', 'the next']) {
        const outcome = await lockOnce(flag, at);
        t.true(outcome instanceof LockAcquireError, `${attempt}: ${JSON.stringify(outcome)}`);
        t.regex((outcome as Error).message, refusal, attempt);
        const cause = (outcome as Error).cause;
        t.true(cause instanceof RedisConnectionError && cause.fatal, `${attempt}: fatal, not tried again`);
      }
      if (at === server) t.deepEqual(await databasesHolding(at, `LOCK_${flag}_A`), []);
      // The others were started empty for this: no key in any database (they cannot all SELECT).
      else t.deepEqual(await databasesWithKeys(at), []);
      await close();
    });
  }
}

/** The ids of the server's client connections on database `db`, by CLIENT LIST. */
async function connectionsOn(db: number): Promise<string[]> {
  const list = String(await admin.client('LIST'));
  return [...list.matchAll(/^id=(\d+) .* db=(\d+) /gm)].filter((match) => Number(match[2]) === db).map((m) => m[1]!);
}

/** Cuts the connections on database 3 and waits for one made again there: ready, its SELECT (ioredis's) answered. */
async function connectAgain(): Promise<void> {
  const before = await connectionsOn(3);
  for (const id of before) await admin.client('KILL', 'ID', id);
  await until(async () => (await connectionsOn(3)).some((id) => !before.includes(id)), {
    what: 'a connection made again, on database 3',
  });
}

/** INFO commandstats's figures for SELECT (0 before any). */
async function selectStats(): Promise<{ calls: number; rejected: number }> {
  const line = /^cmdstat_select:(.*)$/m.exec(await admin.info('commandstats'))?.[1] ?? '';
  const figure = (name: string) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0);
  return { calls: figure('calls'), rejected: figure('rejected_calls') };
}

/**
 * Locks once on database 3 through `redis` (the connection checked), then has it connect again:
 * the next lock's SELECT, lockweave's own, is the first of that connection's commands it sends.
 */
async function freshConnection(redis: string | Redis, flag: string): Promise<number[] | Error> {
  configure({ redis });
  const first = await lockOnce(flag, server);
  await connectAgain();
  return first;
}

for (const [index, [name, make]] of MAKERS.entries()) {
  test.serial(
    `BUSY (a long script), ${name}: that lock is refused, the next checks again and locks in database 3`,
    async (t) => {
      const redis = make(`${server.url}/3`);
      t.teardown(() => typeof redis !== 'string' && redis.disconnect());
      const flag = `selectBusy${index}`;
      t.deepEqual(await freshConnection(redis, flag), [3], 'checked and locked on the first connection');
      // A script that never ends, sent from its own connection: past the threshold the server
      // answers every other command BUSY, SCRIPT KILL aside.
      const blocker = new Redis(server.url);
      const probe = new Redis(server.url);
      await probe.ping();
      t.teardown(() => {
        blocker.disconnect();
        probe.disconnect();
      });
      const before = await selectStats();
      const script = blocker.eval('while true do end', 0).catch((error: Error) => error);
      try {
        await until(async () => /^BUSY/.test(String(await probe.ping().catch((error: Error) => error.message))), {
          what: 'the server busy with the script',
        });
        const outcome = await lockOnce(flag, server);
        t.true(outcome instanceof LockAcquireError, JSON.stringify(outcome));
        t.regex((outcome as Error).message, /BUSY/);
        const cause = (outcome as Error).cause;
        t.false(cause instanceof RedisConnectionError && cause.fatal, 'busy for now: not fatal');
      } finally {
        await admin.script('KILL');
      }
      t.regex(String(await script), /killed/i);
      t.true((await selectStats()).rejected > before.rejected, 'the BUSY reply was to the SELECT');
      t.deepEqual(await databasesHolding(server, `LOCK_${flag}_A`), [], 'nothing locked while busy');
      t.deepEqual(await lockOnce(flag, server), [3], 'checked again on the same connection, and locked there');
      await close();
    },
  );

  test.serial(
    `NOPERM on a connection already made (SELECT taken from its ACL user), ${name}: the lock is refused for good`,
    async (t) => {
      const user = `later${index}`;
      await admin.acl('SETUSER', user, 'on', `>${PASSWORD}`, '~*', '&*', '+@all');
      const redis = make(`redis://${user}:${PASSWORD}@127.0.0.1:${server.port}/3`);
      t.teardown(() => typeof redis !== 'string' && redis.disconnect());
      const flag = `selectRevoked${index}`;
      t.deepEqual(await freshConnection(redis, flag), [3]);
      // No cut: the connection stays in database 3, and only lockweave's SELECT meets the refusal.
      await admin.acl('SETUSER', user, '-select');
      const before = await selectStats();
      for (const attempt of ['the first lock', 'the next']) {
        const outcome = await lockOnce(flag, server);
        t.true(outcome instanceof LockAcquireError, `${attempt}: ${JSON.stringify(outcome)}`);
        t.regex(
          (outcome as Error).message,
          /it refused to select database 3, so commands would go to database 0: NOPERM/,
          attempt,
        );
        const cause = (outcome as Error).cause;
        t.true(cause instanceof RedisConnectionError && cause.fatal, `${attempt}: fatal, not tried again`);
      }
      t.is((await selectStats()).rejected, before.rejected + 1, 'one SELECT refused, none sent again');
      t.deepEqual(await databasesHolding(server, `LOCK_${flag}_A`), []);
      await close();
    },
  );

  test.serial(`${name}: one SELECT per connection, not one per lock`, async (t) => {
    const LOCKS = 60;
    const stats = async () => ({
      ...(await selectStats()),
      connections: Number(/^total_connections_received:(\d+)/m.exec(await admin.info('stats'))?.[1]),
    });
    const before = await stats();
    const redis = make(`${server.url}/3`);
    t.teardown(() => typeof redis !== 'string' && redis.disconnect());
    configure({ redis });
    const lock = defineLock({ businessFlag: 'selectCount', retries: 0 });
    for (let round = 0; round < LOCKS; round++) await (await lock.acquire(`K${round}`)).release();
    // A second connection, and as many locks at once on it.
    await connectAgain();
    const leases = await Promise.all(Array.from({ length: LOCKS }, (_, round) => lock.acquire(`C${round}`)));
    await Promise.all(leases.map((lease) => lease.release()));
    const after = await stats();
    const made = after.connections - before.connections;
    t.log(`${2 * LOCKS} locks: ${made} connections, ${after.calls - before.calls} SELECTs`);
    t.true(
      made >= 2 && made <= 4,
      `${made} connections: the first, and the one made again (a failed try or two aside)`,
    );
    // Each connection's two: ioredis's in its handshake, and lockweave's check before its first lock.
    t.is(after.calls - before.calls, 2 * made);
    await close();
  });
}
