// Two copies of the runtime in one process lock the same business under the same key on the same
// server, or neither locks: any configure() — a prefix, a default, not only a server — configures a
// copy, and configured copies must agree on the server, the prefix and Redlock. Each copy is the
// runtime file loaded a second time (require.cache emptied of it), as a nested install loads its own.
// A file of its own: the copies stay registered for the process's life, as real ones do.
import test from 'ava';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

type Runtime = typeof import('lockweave');
const RUNTIME = require.resolve('lockweave');

let main: RedisServer;
let other: RedisServer;
let third: RedisServer;
let look: Redis;
const savedRedisUrl = process.env.REDIS_URL;
const loaded: Runtime[] = [];

test.before(async () => {
  [main, other, third] = await Promise.all([startRedisServer(), startRedisServer(), startRedisServer()]);
  process.env.REDIS_URL = main.url; // the default: both copies would lock on this one server
  look = new Redis(main.url);
});
test.after.always(async () => {
  if (savedRedisUrl === undefined) delete process.env.REDIS_URL;
  else process.env.REDIS_URL = savedRedisUrl;
  await Promise.all(loaded.map((copy) => copy.close()));
  look?.disconnect();
  await Promise.all([main?.stop(), other?.stop(), third?.stop()]);
});

/** A copy of the runtime of its own, as a second install would load it. */
function copy(): Runtime {
  delete require.cache[RUNTIME];
  const runtime = require(RUNTIME) as Runtime;
  loaded.push(runtime);
  return runtime;
}

const hold = { autoUnlock: false, lockTime: 30_000, retries: 0 } as const;

test.serial('copies that would lock one business under two keys, or on two servers, refuse to lock', async (t) => {
  const app = copy();
  const library = copy();
  const order = uniqueId('O');
  // The app sets only its prefix: its server is still the default, and the library's copy is never configured.
  app.configure({ prefix: 'shop:' });
  t.is(await app.withLock({ businessFlag: 'payOrder', key: order, ...hold }, () => 'held'), 'held');
  const unconfigured = await t.throwsAsync(
    library.withLock({ businessFlag: 'payOrder', key: order, ...hold }, () => 'ran beside the app'),
  );
  t.regex(
    unconfigured!.message,
    /this copy of lockweave \(.+\) was never configured.*another copy \(.+\) was configured/,
  );
  t.regex(unconfigured!.message, /prefix "shop:"/);
  t.is(await look.exists(`LOCK_payOrder_${order}`), 0, 'the library took no key under the default prefix');

  // Configured too, but with another prefix: both copies refuse, naming both and what differs.
  library.configure({ prefix: 'lib:' });
  for (const [runtime, here, there] of [
    [library, 'lib:', 'shop:'],
    [app, 'shop:', 'lib:'],
  ] as const) {
    const error = await t.throwsAsync(
      runtime.withLock({ businessFlag: 'payOrder', key: uniqueId('O'), ...hold }, () => 1),
    );
    t.regex(
      error!.message,
      /two copies of lockweave in this process are configured differently — this one \(.+\) and another \(.+\)/,
    );
    t.true(error!.message.includes(`the prefix is "${here}" here, "${there}" there`), error!.message);
  }

  // Configured alike: they lock the same key, and the library's copy finds the app's order held.
  library.configure({ prefix: 'shop:' });
  const busy = await t.throwsAsync(library.withLock({ businessFlag: 'payOrder', key: order, ...hold }, () => 'ran'));
  t.is(busy!.name, 'LockAcquireError');
  t.is(busy!.message.includes(`shop:payOrder_${order}`), true);

  // A default that picks the server: redlock: true in one copy alone is refused in both.
  app.configure({ redlock: [main.url, other.url, third.url], defaults: { redlock: true } });
  const redlock = await t.throwsAsync(library.withLock({ businessFlag: 'payOrder', key: uniqueId('O') }, () => 1));
  t.regex(redlock!.message, /the redlock default is false here, true there/);
  app.configure({ defaults: { redlock: false } });
  t.is(await library.withLock({ businessFlag: 'payOrder', key: uniqueId('O') }, () => 'ran'), 'ran');

  // The server: one copy moved to another Redis is refused, the server named (never credentials).
  library.configure({ redis: `redis://user:secret@127.0.0.1:${other.port}` });
  const moved = await t.throwsAsync(app.withLock({ businessFlag: 'payOrder', key: uniqueId('O') }, () => 1));
  t.true(
    moved!.message.includes(
      `the server is the default Redis (REDIS_URL, else 127.0.0.1:6379) here, 127.0.0.1:${other.port}, database 0 there`,
    ),
    moved!.message,
  );
  t.false(moved!.message.includes('secret'));
  app.configure({ redis: `redis://127.0.0.1:${other.port}` });
  t.is(
    await app.withLock({ businessFlag: 'payOrder', key: uniqueId('O') }, () => 'ran'),
    'ran',
    'the same server, other credentials',
  );
});
