// Two copies of the runtime in one process (a library with its own install of lockweave, a bundle
// with one per chunk) keep their own settings: the app's configure() reaches one. The other must
// not lock on the default Redis meanwhile — nor be configured while the first already does.
// Each copy here is the runtime file loaded a second time (require.cache emptied of it), as a
// nested install loads its own.
import test from 'ava';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

type Runtime = typeof import('lockweave');
const RUNTIME = require.resolve('lockweave');

/** A copy of the runtime of its own, as a second install would load it. */
function loadCopy(): Runtime {
  delete require.cache[RUNTIME];
  return require(RUNTIME) as Runtime;
}

let named: RedisServer;
let fallback: RedisServer;
const savedRedisUrl = process.env.REDIS_URL;
const loaded: Runtime[] = [];

test.before(async () => {
  [named, fallback] = await Promise.all([startRedisServer(), startRedisServer()]);
  process.env.REDIS_URL = fallback.url; // the default a copy never configured would take
});
test.after.always(async () => {
  if (savedRedisUrl === undefined) delete process.env.REDIS_URL;
  else process.env.REDIS_URL = savedRedisUrl;
  await Promise.all(loaded.map((copy) => copy.close()));
  await Promise.all([named?.stop(), fallback?.stop()]);
});

function copy(): Runtime {
  const runtime = loadCopy();
  loaded.push(runtime);
  return runtime;
}

// One scenario in order: the copies stay registered for the process's life, as real ones do.
test.serial('copies that mix the default and a configured server are refused, whichever comes first', async (t) => {
  const library = copy();
  const app = copy();
  const key = uniqueId('default');
  const look = new Redis(fallback.url);
  try {
    // A copy never configured locks first, on REDIS_URL: configuring another copy is refused then.
    const onFallback = await library.withLock({ businessFlag: 'copies', key }, () => look.exists(`LOCK_copies_${key}`));
    t.is(onFallback, 1, 'the copy never configured locked on REDIS_URL');
    t.throws(() => app.configure({ redis: named.url }), {
      message: /another copy of lockweave \(.+\) already locks on the default Redis, never configured/,
    });
    // Any configure() would configure this copy: one that sets only a logger too.
    t.throws(() => app.configure({ logger: () => undefined }), { message: /already locks on the default Redis/ });
  } finally {
    look.disconnect();
  }
  // Configured too, both lock on the server they were given.
  library.configure({ redis: named.url });
  app.configure({ redis: named.url });
  t.is(await app.withLock({ businessFlag: 'copies', key: uniqueId('app') }, () => 'ran'), 'ran');
  t.is(await library.withLock({ businessFlag: 'copies', key: uniqueId('library') }, () => 'ran'), 'ran');
  // A third copy, never configured, refuses the default while the others are configured.
  const another = copy();
  const error = await t.throwsAsync(
    another.withLock({ businessFlag: 'copies', key: uniqueId('another') }, () => 'ran'),
  );
  t.regex(error!.message, /this copy of lockweave \(.+\) was never configured, and would lock on the default Redis/);
});
