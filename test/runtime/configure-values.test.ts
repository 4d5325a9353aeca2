// Values that name nothing, or are of the wrong type, are refused where they are given, on a real
// Redis: `undefined` (an unset environment variable) never resets a setting to its default — the
// prefix, a default such as redlock — and a number or flag written as text is read as what its
// option takes (from a URL) or refused (in code), never passed on to ioredis or read as truthy.
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { close, configure, defineLock, lock, withLock, type LockOptions } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';
import { until } from '../helpers/time';

const run = promisify(execFile);

let servers: RedisServer[];
let looks: Redis[];

test.before(async () => {
  servers = await Promise.all([startRedisServer(), startRedisServer(), startRedisServer()]);
  looks = servers.map((server) => new Redis(server.url));
});
test.after.always(async () => {
  await close();
  for (const look of looks ?? []) look.disconnect();
  await Promise.all((servers ?? []).map((server) => server.stop()));
});

const hold = { autoUnlock: false, lockTime: 30_000, retries: 0 } as const;

test.serial(
  'configure({ prefix: undefined }) is refused, and locks stay under the prefix configured before',
  async (t) => {
    configure({ redis: servers[0].url, prefix: 'shop:' });
    const order = uniqueId('o');
    await withLock({ businessFlag: 'pay', key: order, ...hold }, () => undefined);
    const unset: { LOCK_PREFIX?: string } = {};
    t.throws(() => configure({ prefix: unset.LOCK_PREFIX }), {
      instanceOf: TypeError,
      message: /prefix is undefined, which names nothing \(an environment variable or setting that is not set\?\)/,
    });
    let ran = false;
    const error = await t.throwsAsync(
      withLock({ businessFlag: 'pay', key: order, ...hold }, () => {
        ran = true;
      }),
    );
    t.is(error!.name, 'LockAcquireError', 'the second call meets the first one under shop:');
    t.false(ran);
    t.is(await looks[0].exists(`LOCK_pay_${order}`), 0);
    configure({ prefix: 'LOCK_' });
  },
);

test.serial(
  'defaults: { redlock: undefined } is refused, and redlock: true stays: locks stay on the majority',
  async (t) => {
    configure({ redis: servers[0].url, redlock: servers.map((server) => server.url), defaults: { redlock: true } });
    try {
      const settingsFile: { redlock?: boolean } = {};
      t.throws(() => configure({ defaults: { waitTime: 1_000, redlock: settingsFile.redlock } }), {
        instanceOf: TypeError,
        message: /defaults: redlock is undefined, which names nothing/,
      });
      const key = uniqueId('after');
      await withLock({ businessFlag: 'pay', key, ...hold }, () => undefined);
      // Redlock goes on once a majority holds the key: the last server's SET may land just after.
      const held = () => Promise.all(looks.map((look) => look.exists(`LOCK_pay_${key}`)));
      t.true((await held()).filter((count) => count === 1).length >= 2);
      await until(async () => (await held()).every((count) => count === 1), {
        timeoutMs: 10_000,
        what: 'every server holds the key',
      });
    } finally {
      // Undone whatever failed above: the tests after this one lock on one server.
      configure({ redlock: undefined, defaults: { redlock: false } });
    }
  },
);

test.serial('a boolean lock option given as a string is refused, and no key is taken or released', async (t) => {
  configure({ redis: servers[0].url });
  for (const name of ['autoUnlock', 'watchdog', 'reentrant'] as const) {
    for (const value of ['false', 'true', 0, 1]) {
      const key = uniqueId(name);
      const options = { [name]: value } as unknown as Partial<LockOptions>;
      let ran = false;
      const error = await t.throwsAsync(
        withLock({ businessFlag: 'loose', key, lockTime: 5_000, ...options }, () => {
          ran = true;
        }),
      );
      t.is(error!.name, 'TypeError');
      t.true(
        error!.message.includes(
          `option ${name} must be true or false, got ${typeof value === 'string' ? `the string "${value}"` : value}`,
        ),
        error!.message,
      );
      t.false(ran);
      t.is(await looks[0].exists(`LOCK_loose_${key}`), 0);
      await t.throwsAsync(lock({ businessFlag: 'loose', key, ...options }), { instanceOf: TypeError });
      t.throws(() => defineLock({ businessFlag: 'loose', ...options }), { instanceOf: TypeError });
    }
  }
  t.throws(() => configure({ defaults: { autoUnlock: 'false' as never } }), {
    instanceOf: TypeError,
    message: /defaults: option autoUnlock must be true or false, got the string "false"/,
  });
  // The real false still keeps the key.
  const kept = uniqueId('kept');
  await withLock({ businessFlag: 'loose', key: kept, autoUnlock: false, lockTime: 5_000 }, () => undefined);
  t.is(await looks[0].exists(`LOCK_loose_${kept}`), 1);
});

test.serial(
  'numbers and flags in a URL are read as their options take them: the lock runs, the process lives',
  async (t) => {
    const program = join(__dirname, 'programs', 'lock-and-exit.js');
    const key = uniqueId('query');
    const query = 'connectTimeout=3000&keepAlive=1000&enableReadyCheck=false&maxRetriesPerRequest=1&family=4';
    // Through REDIS_URL (no configure()): ioredis would get "3000" as its socket timeout and throw at the first lock.
    const { stdout } = await run(process.execPath, [program, key], {
      env: { ...process.env, REDIS_URL: `${servers[0].url}/0?${query}` },
      timeout: 20_000,
    });
    t.is(stdout.trim(), `LOCK_exitCheck_${key}`);
    configure({ redis: `${servers[1].url}?${query}` });
    t.is(await withLock({ businessFlag: 'query', key }, () => looks[1].exists(`LOCK_query_${key}`)), 1);
    // A port and a database from environment variables (strings of digits) are read as numbers too.
    configure({ redis: { host: '127.0.0.1', port: String(servers[2].port) as never, db: '3' as never } });
    const onDb3 = new Redis(`${servers[2].url}/3`);
    try {
      t.is(await withLock({ businessFlag: 'query', key }, () => onDb3.exists(`LOCK_query_${key}`)), 1);
    } finally {
      onDb3.disconnect();
    }
  },
);
