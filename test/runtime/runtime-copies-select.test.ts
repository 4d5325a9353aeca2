// Two copies of the runtime given clients the user can move: an ioredis client's select() after
// configure() moves its locks to another database, and the copies are compared as they lock, not as
// they were configured; a node-redis client keeps the database a select() moved it to to itself, so
// two copies agree on node-redis only through the same client. Both used to lock one business in two
// databases, both bodies running. Each copy is the runtime file loaded again (runtime-copies-agree.test.ts);
// a file of its own, as the copies stay registered for the process's life.
import test from 'ava';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

type Runtime = typeof import('lockweave');
const RUNTIME = require.resolve('lockweave');

let server: RedisServer;
const loaded: Runtime[] = [];
const clients: { close(): unknown }[] = [];

test.before(async () => {
  server = await startRedisServer();
});
test.after.always(async () => {
  await Promise.all(loaded.map((copy) => copy.close()));
  await Promise.all(clients.map((client) => client.close()));
  await server?.stop();
});

function copy(): Runtime {
  delete require.cache[RUNTIME];
  const runtime = require(RUNTIME) as Runtime;
  loaded.push(runtime);
  return runtime;
}

async function nodeRedis() {
  const client = createClient({ url: server.url });
  client.on('error', () => undefined);
  await client.connect();
  clients.push({ close: () => client.destroy() });
  return client;
}

const once = { lockTime: 5_000, retries: 0 } as const;

test.serial(
  "copies are compared as they lock: a select() after configure() moves an ioredis client's locks, and is refused",
  async (t) => {
    const app = copy();
    const library = copy();
    const client = new Redis(server.url);
    clients.push({ close: () => client.disconnect() });
    app.configure({ redis: client });
    library.configure({ redis: server.url });
    t.is(
      await library.withLock({ businessFlag: 'pay', key: uniqueId('O'), ...once }, () => 'ran'),
      'ran',
      'the same database',
    );

    await client.select(5);
    for (const [runtime, here, there] of [
      [app, 5, 0],
      [library, 0, 5],
    ] as const) {
      const error = await t.throwsAsync(
        runtime.withLock({ businessFlag: 'pay', key: uniqueId('O'), ...once }, () => 1),
      );
      t.regex(error!.message, /two copies of lockweave in this process are configured differently/);
      t.true(
        error!.message.includes(`database ${here} here`) && error!.message.includes(`database ${there} there`),
        error!.message,
      );
    }
    await client.select(0);
    t.is(await app.withLock({ businessFlag: 'pay', key: uniqueId('O'), ...once }, () => 'ran'), 'ran', 'moved back');
  },
);

test.serial(
  'two node-redis clients, whose select() cannot be read, are refused; one client given to both is not',
  async (t) => {
    const [app, library] = loaded;
    const [first, second] = [await nodeRedis(), await nodeRedis()];
    app.configure({ redis: first });
    library.configure({ redis: second });
    await second.select(5); // what the copies cannot see: the reason two clients are refused
    const error = await t.throwsAsync(library.withLock({ businessFlag: 'pay', key: uniqueId('O'), ...once }, () => 1));
    t.regex(
      error!.message,
      /the server is given as two different objects, 127\.0\.0\.1:\d+ through a node-redis client here and there/,
    );

    library.configure({ redis: first });
    t.is(await library.withLock({ businessFlag: 'pay', key: uniqueId('O'), ...once }, () => 'ran'), 'ran');
    t.is(await app.withLock({ businessFlag: 'pay', key: uniqueId('O'), ...once }, () => 'ran'), 'ran');
  },
);
