// The store's command batch (runtime/store/command-batch.ts) writes a tick's commands a few at a
// time. What must not change with how they are written: each command gets its own reply, in the
// order given, an error fails only its own command, and a batch larger than one write (more than
// 16 commands) loses nothing — on a plain client, on one that auto-pipelines, on one with a
// keyPrefix, and on one the store bounds itself (no commandTimeout).
import test from 'ava';
import { Redis, type RedisOptions } from 'ioredis';
import { commandSender } from '../../runtime/store/command-batch';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';
import { eventually } from '../helpers/time';

let server: RedisServer;
const clients: Redis[] = [];

test.before(async () => {
  server = await startRedisServer();
});

test.after.always(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

const CLIENTS: Array<[string, RedisOptions, number | undefined]> = [
  ['a plain client', { commandTimeout: 2_000 }, undefined],
  ['an auto-pipelining client', { enableAutoPipelining: true, commandTimeout: 2_000 }, undefined],
  ['a client the store bounds (no commandTimeout)', {}, 2_000],
  ['a client with a keyPrefix', { keyPrefix: 'app:', commandTimeout: 2_000 }, undefined],
  ['a client with friendly error stacks', { showFriendlyErrorStack: true, commandTimeout: 2_000 }, undefined],
];

for (const [name, options, timeoutMs] of CLIENTS) {
  test(`${name}: 100 commands of one tick each get their own reply, in order`, async (t) => {
    const client = new Redis(server.url, options);
    clients.push(client);
    const sender = commandSender(client, timeoutMs);
    const key = uniqueId('batch');
    const replies = await Promise.all(Array.from({ length: 100 }, () => sender.send('incr', [key])));
    t.deepEqual(
      replies,
      Array.from({ length: 100 }, (_, index) => index + 1),
    );
  });

  test(`${name}: an error fails only its own command, in a batch of one write and across writes`, async (t) => {
    const client = new Redis(server.url, options);
    clients.push(client);
    const sender = commandSender(client, timeoutMs);
    const key = uniqueId('batch');
    const sent = Array.from({ length: 40 }, (_, index) =>
      index % 7 === 3 ? sender.send('hget', [key]) : sender.send('incr', [key]),
    );
    const settled = await Promise.allSettled(sent);
    const failed = settled.flatMap((outcome, index) => (outcome.status === 'rejected' ? [index] : []));
    t.deepEqual(failed, [3, 10, 17, 24, 31, 38]);
    const counts = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    t.deepEqual(
      counts,
      Array.from({ length: 34 }, (_, index) => index + 1),
    );
  });
}

// ioredis, told not to send again what a lost connection left unanswered (as the runtime's own
// connections are), drops those commands silently: each would wait out its command timeout. The
// batch fails them when the connection closes, and the client goes on with the next. (Not on an
// auto-pipelining client: its own commands after a reconnect — its ready check among them — wait
// behind the auto-pipeline the cut left unanswered, whatever the batch does; docs/configuration.md.)
for (const [name, options, timeoutMs] of CLIENTS.filter(([, options]) => !options.enableAutoPipelining)) {
  test(`${name}: a command in flight when its connection is cut fails at once, not at its timeout`, async (t) => {
    // Timeouts far longer than the close takes: only the close can fail the command in time. (Not
    // longer still: ioredis keeps a failed command's timeout timer until it fires, and it keeps the
    // test's process alive till then.)
    const longer = options.commandTimeout ? { commandTimeout: 10_000 } : {};
    const client = new Redis(server.url, { ...options, ...longer, autoResendUnfulfilledCommands: false });
    const admin = new Redis(server.url);
    clients.push(client, admin);
    const sender = commandSender(client, timeoutMs && 10_000);
    const id = Number(await sender.send('client', ['id']));
    const startedAt = Date.now();
    // A list nobody pushes to: the command is on the wire until the connection goes.
    const blocked = sender.send('blpop', [uniqueId('batch-empty'), 0]);
    t.true(await eventually(async () => String(await admin.client('LIST', 'ID', id)).includes('cmd=blpop')));
    await admin.client('KILL', 'ID', id);
    const error = await t.throwsAsync(blocked);
    t.regex(error.message, /Connection is closed/);
    // Far below the 10 s timeout: the close failed it, not a timer.
    t.true(Date.now() - startedAt < 5_000, `failed after ${Date.now() - startedAt} ms`);
    t.is(await sender.send('echo', ['next']), 'next', 'the client goes on with the next command');
  });
}

test("an auto-pipelining client's auto-pipeline is bypassed: the batch's commands go straight to sendCommand", async (t) => {
  const client = new Redis(server.url, { enableAutoPipelining: true, commandTimeout: 2_000 });
  clients.push(client);
  await client.ping();
  // call() is where ioredis auto-pipelines; the batch must not go through it.
  let called = 0;
  const call = client.call.bind(client);
  client.call = ((...args: Parameters<typeof call>) => (called++, call(...args))) as typeof client.call;
  const sender = commandSender(client);
  const replies = await Promise.all(Array.from({ length: 20 }, (_, index) => sender.send('echo', [String(index)])));
  t.deepEqual(
    replies,
    Array.from({ length: 20 }, (_, index) => String(index)),
  );
  t.is(called, 0, 'no command went through call() and its auto-pipeline');
});

test("a client's keyPrefix applies to the batch's commands as to its own", async (t) => {
  const client = new Redis(server.url, { keyPrefix: 'app:' });
  const admin = new Redis(server.url);
  clients.push(client, admin);
  const key = uniqueId('batch-prefix');
  await commandSender(client, 2_000).send('set', [key, 'v']);
  t.is(await admin.get(`app:${key}`), 'v');
  t.is(await admin.get(key), null);
});

// A client with a commandTimeout: ioredis would start a timer for each command it is given (and
// clear it at the answer); the batch's commands start none, one timer per write bounds them, with
// the client's own timeout.
test("a client's commandTimeout bounds the batch's commands with one timer per write, not one per command", async (t) => {
  const client = new Redis(server.url, { commandTimeout: 600 });
  clients.push(client);
  const sender = commandSender(client);
  await sender.send('ping', []);
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const before = timers();
  const sent = Array.from({ length: 100 }, (_, index) => sender.send('echo', [String(index)]));
  // After the tick's last write (the batch flushes on process.nextTick), before any answer is read.
  await new Promise((resolve) => process.nextTick(resolve));
  const during = timers() - before;
  await Promise.all(sent);
  t.true(during < 10, `${during} timers for 100 commands in flight`);
  // A command Redis does not answer (a list nobody pushes to) fails at the client's timeout.
  const startedAt = Date.now();
  const error = await t.throwsAsync(sender.send('blpop', [uniqueId('batch-empty'), 0]));
  t.regex(error.message, /timed out/);
  t.true(Date.now() - startedAt >= 500, `failed after ${Date.now() - startedAt} ms`);
});
