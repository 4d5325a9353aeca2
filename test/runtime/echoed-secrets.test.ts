// Redis answers a command it does not know by echoing its arguments. A server with AUTH (and HELLO)
// renamed away, as some managed services and proxies have it, answers a client's AUTH with
// "ERR unknown command 'auth', with args beginning with: 'lw' '<password>'" (and node-redis's
// HELLO with "… '3' 'AUTH' 'default' '<password>'"). lockweave quotes
// server errors in its own messages (a LockAcquireError's, a RedisConnectionError's, the CLI's):
// none of them, nor any stack, cause or logger event, may carry that password — for a URL, options,
// an ioredis client and a node-redis client of the user's, and the command line.
import test, { type ExecutionContext } from 'ava';
import { Redis } from 'ioredis';
import { close, configure, defineLock, describeEvent, LockAcquireError, type LockEvent } from 'lockweave';
import { credentialsOf, safeText, withoutSecrets } from '../../runtime/base/safe-error';
import { childRunner } from '../helpers/child-process';
import { assertNoSecret, exposed } from '../helpers/exposed';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/time';

const SECRET = 'Hunter2/Quokka@Ibex:SECRET%Okapi';
const PIECES = SECRET.split(/[/@:%]/);
const USER = 'lockuser';

/** A server that knows neither AUTH nor HELLO: it echoes the arguments of each it is sent. */
const NO_AUTH = ['--rename-command', 'AUTH', '', '--rename-command', 'HELLO', ''];
let echoing: RedisServer;
const runChild = childRunner(1);

test.before(async () => {
  echoing = await startRedisServer(NO_AUTH);
});
test.after.always(async () => {
  await close();
  await echoing?.stop();
});

const url = (server: RedisServer) => `redis://${USER}:${encodeURIComponent(SECRET)}@127.0.0.1:${server.port}`;

async function failedLock(flag: string): Promise<unknown> {
  try {
    await defineLock({ businessFlag: flag, retries: 1, waitTime: 300 }).acquire('A');
  } catch (error) {
    return error;
  }
  throw new Error('the lock was taken from a server that never took the credentials');
}

function assertNothingEchoed(t: ExecutionContext, error: unknown, events: LockEvent[]) {
  t.true(error instanceof LockAcquireError, String(error));
  // The server's words are kept, its echo of the arguments is not.
  t.regex((error as Error).message, /unknown command 'auth', with args beginning with: \(not shown\)/);
  assertNoSecret(t, exposed(error), SECRET, PIECES);
  t.false(exposed(error).includes(`'${USER}'`), 'the user name echoed');
  assertNoSecret(t, exposed(events) + events.map(describeEvent).join('\n'), SECRET, PIECES);
}

test.serial("the runtime's own connection, from a URL and from options", async (t) => {
  for (const redis of [
    url(echoing),
    { host: '127.0.0.1', port: echoing.port, username: USER, password: SECRET },
    { host: '127.0.0.1', port: echoing.port, password: SECRET },
  ]) {
    const events: LockEvent[] = [];
    configure({ redis, logger: (event) => events.push(event) });
    assertNothingEchoed(t, await failedLock('echo-own'), events);
    await close();
  }
});

test.serial('an ioredis client of the user', async (t) => {
  const client = new Redis({
    host: '127.0.0.1',
    port: echoing.port,
    username: USER,
    password: SECRET,
    maxRetriesPerRequest: 1,
  });
  client.on('error', () => undefined);
  t.teardown(() => client.disconnect());
  const events: LockEvent[] = [];
  configure({ redis: client, logger: (event) => events.push(event) });
  assertNothingEchoed(t, await failedLock('echo-ioredis'), events);
  await close();
});

test.serial('a node-redis client of the user, its server restarted without AUTH and HELLO', async (t) => {
  const { createClient } = await import('redis');
  // Its own server: it takes the password at first, and after a restart no longer knows AUTH.
  const server = await startRedisServer();
  const admin = new Redis(server.url);
  await admin.config('SET', 'requirepass', SECRET);
  admin.disconnect();
  // The default user: the server has no other.
  const client = createClient({
    url: `redis://:${encodeURIComponent(SECRET)}@127.0.0.1:${server.port}`,
    socket: { reconnectStrategy: () => 50 },
  });
  const clientErrors: Error[] = [];
  client.on('error', (error: Error) => clientErrors.push(error));
  await client.connect();
  t.teardown(async () => {
    client.destroy();
    await server.stop();
  });
  const events: LockEvent[] = [];
  configure({ redis: client as never, logger: (event) => events.push(event) });
  await server.kill();
  await server.restart(NO_AUTH);
  await until(() => clientErrors.some((error) => error.message.includes(SECRET)), {
    what: "node-redis's HELLO echoed by the restarted server",
  });
  // node-redis goes on without its HELLO; with a password required, its commands are refused too.
  const restarted = new Redis(server.url);
  await restarted.config('SET', 'requirepass', SECRET);
  await restarted.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
  restarted.disconnect();
  const error = await failedLock('echo-node-redis');
  t.true(error instanceof LockAcquireError, String(error));
  assertNoSecret(t, exposed(error), SECRET, PIECES);
  assertNoSecret(t, exposed(events) + events.map(describeEvent).join('\n'), SECRET, PIECES);
  await close();
});

test('lockweave locks against a server that echoes AUTH prints no credential', async (t) => {
  const ran = await runChild(process.execPath, [CLI, 'locks', '--redis', url(echoing)], { cwd: ROOT });
  t.is(ran.status, 1, ran.output);
  t.regex(ran.stderr, /^lockweave: 127\.0\.0\.1:\d+: .*with args beginning with: \(not shown\)/);
  assertNoSecret(t, ran.output, SECRET, PIECES);
  t.false(ran.output.includes(USER), ran.output);
});

test('safeText: an echo is cut to its line end, credentials go wherever they stand, user names only as words', (t) => {
  const credentials = credentialsOf(url(echoing));
  t.deepEqual(
    safeText(`ERR unknown command \`auth\`, with args beginning with: \`${USER}\`, \`${SECRET}\`, \nnext line`),
    'ERR unknown command `auth`, with args beginning with: (not shown)\nnext line',
  );
  t.is(
    safeText(`proxy: unsupported command AUTH ${USER} ${SECRET} (${encodeURIComponent(SECRET)})`, credentials),
    'proxy: unsupported command AUTH *** *** (***)',
  );
  t.is(safeText(`${USER}s and ${USER}-x stay, ${USER} goes`, credentials), `${USER}s and ${USER}-x stay, *** goes`);
  // What client options hold: ioredis's, a Cluster's per-node ones, node-redis's, GLIDE's.
  t.deepEqual(
    credentialsOf(
      { password: 'p1', redisOptions: { username: 'u2', password: 'p2' }, sentinelPassword: 'p3' },
      { defaults: { password: 'p4' }, rootNodes: [{ url: 'redis://u5:p%405@h:1' }] },
      [{ host: 'h', port: 1, password: 'p6' }],
      { credentials: { username: 'u7', password: 'p7' } },
    ),
    { passwords: ['p1', 'p2', 'p3', 'p4', 'p%405', 'p@5', 'p6', 'p7'], users: ['u2', 'u5', 'u7'] },
  );
});

test('withoutSecrets: message, stack and every cause and inner error, copied only where something changes', (t) => {
  const credentials = credentialsOf({ password: SECRET });
  const echo = new Error(`ERR unknown command 'auth', with args beginning with: '${SECRET}'`);
  const inner = new AggregateError([echo, new Error(`refused ${SECRET}`)], 'all failed', { cause: echo });
  const outer = new Error('command failed', { cause: inner });
  const safe = withoutSecrets(outer, credentials) as Error;
  assertNoSecret(t, exposed(safe), SECRET, PIECES);
  t.true(safe instanceof Error);
  const safeInner = safe.cause as AggregateError;
  t.true(safeInner instanceof AggregateError);
  t.is(safeInner.errors.length, 2);
  t.regex((safeInner.errors[1] as Error).stack ?? '', /^Error: refused \*\*\*/);
  const clean = new Error('connect ECONNREFUSED 127.0.0.1:1');
  t.is(withoutSecrets(clean, credentials), clean);
});
