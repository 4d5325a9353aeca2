// configure() while locks are held or awaited, and a release that Redis does not answer: a lease
// keeps working until it ends, and a holder that is done never leaves its key locked for the
// rest of its lease.
import test from 'ava';
import { Redis } from 'ioredis';
import { close, configure, withLock, type LockEvent } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';
import { eventually, sleep, until } from '../helpers/time';

let server: RedisServer;
let redis: Redis;
test.before(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});
test.after.always(async () => {
  await close();
  redis?.disconnect();
  await server?.stop();
});

/** Connections the server has open right now, ours for assertions included. */
const connections = async () => ((await redis.client('LIST')) as string).trim().split('\n').length;

test.serial(
  'configure() that names only a logger keeps the connection, and the held lease renews and releases',
  async (t) => {
    const events: LockEvent[] = [];
    configure({ redis: server.url, logger: (event) => events.push(event) });
    const key = uniqueId('logger-only');
    const result = await withLock({ businessFlag: 'reconf', key, lockTime: 600 }, async (lease) => {
      configure({ logger: () => undefined }); // another module's logger; the lease keeps the one it started with
      await sleep(1500); // past two lease lengths: only renewals keep it
      t.true(lease.held);
      t.regex(String(await redis.get(`LOCK_reconf_${key}`)), /^[0-9a-f-]{36}$/);
      return 'done';
    });
    t.is(result, 'done');
    t.is(await redis.exists(`LOCK_reconf_${key}`), 0, 'released');
    t.deepEqual(
      events.filter((e) => e.type === 'lost' || e.type === 'error'),
      [],
    );
    t.true(events.some((e) => e.type === 'renewed'));
    t.true(events.some((e) => e.type === 'released'));
    await close();
  },
);

test.serial(
  'configure() that replaces the connection lets held leases and waiters finish on the old one, then closes it',
  async (t) => {
    const events: LockEvent[] = [];
    configure({ redis: server.url, logger: (event) => events.push(event) });
    const key = uniqueId('replace');
    const before = await connections(); // no runtime connection yet: it connects on the first lock
    let waiterRan = false;
    let holding = false;
    const holder = withLock({ businessFlag: 'reconf', key, lockTime: 600 }, async () => {
      holding = true;
      // The waiter below waits on the old store before the connection is replaced.
      await until(() => events.some((e) => e.type === 'waiting' && e.key === `LOCK_reconf_${key}`), {
        what: 'the waiter waiting',
      });
      t.true((await connections()) > before);
      configure({ redis: server.url }); // a new store from here on
      await sleep(1200); // two lease lengths on the old store: only its renewals keep the lease
      return 'holder';
    });
    await until(() => holding, { what: 'the holder in its body' });
    const waiter = withLock({ businessFlag: 'reconf', key, lockTime: 600, waitTime: 5000 }, async () => {
      waiterRan = true;
      return 'waiter';
    });
    t.deepEqual(await Promise.all([holder, waiter]), ['holder', 'waiter']);
    t.true(waiterRan);
    t.deepEqual(
      events.filter((e) => e.type === 'lost' || e.type === 'error'),
      [],
    );
    t.is(await redis.exists(`LOCK_reconf_${key}`), 0);
    // The old store's connections close once both are done (generous bound: a loaded machine).
    await eventually(async () => (await connections()) <= before, { timeoutMs: 10_000, everyMs: 100 });
    t.is(await connections(), before, 'the replaced store closed its connections');
    await close();
  },
);

test.serial(
  'a release that fails while Redis is down is sent again, so the key is freed soon after Redis is back, not at the end of its lease',
  async (t) => {
    // Append-only with fsync on every write: the held key survives the restart, as on a replica that is promoted.
    const own = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always']);
    const look = new Redis(own.url, { lazyConnect: true, maxRetriesPerRequest: null });
    const events: LockEvent[] = [];
    configure({ redis: own.url, logger: (event) => events.push(event) });
    const key = uniqueId('down');
    try {
      const result = await withLock({ businessFlag: 'retry', key, lockTime: 30_000, watchdog: false }, async () => {
        await own.kill(); // the release below finds no Redis
        return 'body done';
      });
      t.is(result, 'body done', 'the caller gets its result, whatever the release meets');
      t.true(
        events.some((e) => e.type === 'error' && e.during === 'release'),
        'the failed release is reported',
      );
      t.false(events.some((e) => e.type === 'released'));
      await own.restart();
      // Without the retry the key lives out its 30 s lease; the bound is generous for a loaded machine.
      // (The resent release may free the key before this client's first look: it is sent the moment
      // the runtime's connection is back.)
      await eventually(async () => (await look.exists(`LOCK_retry_${key}`)) === 0, { timeoutMs: 15_000, everyMs: 50 });
      t.is(await look.exists(`LOCK_retry_${key}`), 0, 'freed well before its 30 s lease ended');
      // `released` is reported only when the resent release found the key still ours: so the key did
      // survive the restart, and this release, not its lease, freed it.
      t.true(
        events.some((e) => e.type === 'released'),
        'the late release found its key and freed it',
      );
    } finally {
      await close();
      look.disconnect();
      await own.stop();
    }
  },
);

test.serial(
  'close() while a lease is held: the key stays until its lease ends, as after a crash, and the lease then says lost (its signal aborts)',
  async (t) => {
    const events: LockEvent[] = [];
    configure({ redis: server.url, logger: (event) => events.push(event) });
    const key = uniqueId('close-held');
    const lockKey = `LOCK_reconf_${key}`;
    let kept = 0;
    let aborted: unknown;
    await withLock({ businessFlag: 'reconf', key, lockTime: 2_000 }, async (lease) => {
      await close();
      // Not released: nothing can send the release now.
      kept = await redis.pttl(lockKey);
      // Nor renewed: the lease runs out, and says so. Generous bound on a loaded machine.
      await until(() => lease.signal.aborted, 15_000);
      aborted = lease.signal.reason;
      t.false(lease.held);
    }).catch(() => undefined);
    t.true(kept > 0, `the key is kept after close() (pttl ${kept})`);
    t.truthy(aborted, 'the signal aborted');
    t.true(
      events.some((event) => event.type === 'lost'),
      JSON.stringify(events.map((event) => event.type)),
    );
    t.false(
      events.some((event) => event.type === 'released' || event.type === 'renewed'),
      JSON.stringify(events.map((event) => event.type)),
    );
    await until(async () => (await redis.exists(lockKey)) === 0, 10_000);
  },
);
