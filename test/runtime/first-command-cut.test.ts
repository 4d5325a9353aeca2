// A command given to a client that is still connecting — a process's first lock, a lock during a
// reconnect — waits in ioredis's offline queue and is written once the connection is ready. Cut
// after that, it fails at once, as one written on a warm connection does, and the attempt is made
// again on the next connection, not after its command timeout (2 s, past a short wait bound). One
// still waiting in the offline queue when a connection closes is left there: ioredis writes it on
// the next connection, and it is answered there.
import test from 'ava';
import { Redis } from 'ioredis';
import { close, configure, defineLock } from 'lockweave';
import { commandSender } from '../../runtime/store/command-batch';
import { startFaultProxy } from '../helpers/fault-proxy';
import { uniqueId } from '../helpers/redis-fixture';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { eventually } from '../helpers/time';

let server: RedisServer;
let admin: Redis;

test.before(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
});
test.after.always(async () => {
  await close();
  admin?.disconnect();
  await server?.stop();
});

/** The id of the connection that runs `command` now (CLIENT LIST's cmd=), if any. */
async function runningId(command: string): Promise<string | undefined> {
  const line = String(await admin.client('LIST'))
    .split('\n')
    .find((each) => each.includes(` cmd=${command} `));
  return line && /^id=(\d+)/.exec(line)?.[1];
}

test.serial(
  'a command given while the client connects, cut once written, fails at once, not at its timeout',
  async (t) => {
    // Timeouts far longer than the close takes: only the close can fail the command in time.
    const client = new Redis(server.url, { autoResendUnfulfilledCommands: false, commandTimeout: 10_000 });
    t.teardown(() => client.disconnect());
    const sender = commandSender(client);
    t.not(client.status, 'ready', 'given before the connection is ready');
    const startedAt = Date.now();
    // A list nobody pushes to: the command is on the wire until the connection goes.
    const blocked = sender.send('blpop', [uniqueId('first-cut-empty'), 0]);
    let id: string | undefined;
    t.true(await eventually(async () => (id = await runningId('blpop')) !== undefined));
    await admin.client('KILL', 'ID', id!);
    const error = await t.throwsAsync(blocked);
    t.regex(error.message, /Connection is closed/);
    t.true(Date.now() - startedAt < 5_000, `failed after ${Date.now() - startedAt} ms`);
    t.is(await sender.send('echo', ['next']), 'next', 'the client goes on with the next command');
  },
);

test.serial('a command still waiting for the connection when it closes is written on the next one', async (t) => {
  const proxy = await startFaultProxy(server);
  t.teardown(() => proxy.close());
  // Every connection held: the client stays in its handshake, the command in its offline queue.
  proxy.partition(10_000);
  const client = new Redis(proxy.url, {
    autoResendUnfulfilledCommands: false,
    commandTimeout: 10_000,
    retryStrategy: () => 50,
  });
  client.on('error', () => undefined);
  t.teardown(() => client.disconnect());
  const sender = commandSender(client);
  t.true(await eventually(() => client.status === 'connect'), client.status);
  const key = uniqueId('first-cut-kept');
  const sent = sender.send('set', [key, 'v']);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.is(proxy.resetAll(), 1, 'the connection in its handshake is cut');
  t.is(await sent, 'OK');
  t.is(await admin.get(key), 'v');
});

test.serial("a process's first lock, its SET cut once written, is made again at once and acquires", async (t) => {
  const proxy = await startFaultProxy(server);
  t.teardown(() => proxy.close());
  // The SET never reaches Redis and the connection is reset: the attempt is lost with its connection.
  proxy.swallowNext({ pattern: /^SET$/, withinMs: 10_000, resetAfterMs: 0 });
  configure({ redis: proxy.url });
  const startedAt = Date.now();
  // Three attempts within a 1.2 s bound: an attempt left to its 2 s command timeout would spend it all.
  const lease = await defineLock({ businessFlag: 'firstCut', retries: 2, waitTime: 400 }).acquire('A');
  t.is(proxy.swallowed, 1);
  t.true(Date.now() - startedAt < 2_000, `acquired after ${Date.now() - startedAt} ms`);
  await lease.release();
  await close();
});

test.serial(
  "a command failed at a close is not written again by a client that re-sends (ioredis's default)",
  async (t) => {
    // autoResendUnfulfilledCommands left at its default (true), as a caller's own client may have it.
    const client = new Redis(server.url, { commandTimeout: 10_000, retryStrategy: () => 50 });
    client.on('error', () => undefined);
    t.teardown(() => client.disconnect());
    await client.ping();
    const sender = commandSender(client);
    const list = uniqueId('not-resent');
    const blocked = sender.send('blpop', [list, 0]);
    let id: string | undefined;
    t.true(await eventually(async () => (id = await runningId('blpop')) !== undefined));
    await admin.client('KILL', 'ID', id!);
    t.regex((await t.throwsAsync(blocked)).message, /Connection is closed/);
    t.true(await eventually(() => client.status === 'ready'), client.status);
    await client.ping(); // past the reconnect's 'ready', where ioredis writes what it re-sends
    await admin.rpush(list, 'left');
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.is(await runningId('blpop'), undefined, 'no BLPOP was written again');
    t.deepEqual(await admin.lrange(list, 0, -1), ['left'], 'nothing took the element');
  },
);
