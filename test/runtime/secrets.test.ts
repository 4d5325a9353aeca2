// No message, event, warning or error `cause` that lockweave creates or passes on holds a
// credential: not for a wrong password (ioredis's ReplyError keeps AUTH's arguments), not for a
// password with / @ : % in a URL, not for a Cluster node or Redlock server that carries one.
// Checked the way a JSON logger of errors or util.inspect would print them: every own field, the
// whole cause chain.
import test from 'ava';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { tracingChannel } from 'node:diagnostics_channel';
import {
  close,
  configure,
  defineLock,
  describeEvent,
  LockAcquireError,
  lock,
  readJsonField,
  withLock,
  type LockEvent,
} from 'lockweave';
import { assertNoSecret, exposed } from '../helpers/exposed';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';

/** The servers' password, and wrong ones with every character that breaks a URL. */
const RIGHT = 'right-Passw0rd';
const WRONG = 'Wr0ngQuokka/Bison@Ibex:Okapi%Tapir?Lynx#Gnu';
const WRONG_PIECES = WRONG.split(/[/@:%?#]/);

let servers: RedisServer[];

test.before(async () => {
  servers = await Promise.all([0, 1, 2].map(() => startRedisServer()));
  // Set once started: the helper's start-up PING would be refused with a password.
  await Promise.all(
    servers.map(async (server) => {
      const admin = new Redis(server.url);
      await admin.config('SET', 'requirepass', RIGHT);
      admin.disconnect();
    }),
  );
});
test.after.always(async () => {
  await close();
  await Promise.all((servers ?? []).map((server) => server.stop()));
});

async function failedLock(flag: string, options: { redlock?: boolean } = {}): Promise<unknown> {
  const lock = defineLock({ businessFlag: flag, retries: 1, waitTime: 200, ...options });
  try {
    await lock.acquire('A');
  } catch (error) {
    return error;
  }
  throw new Error('the lock was taken with a wrong password');
}

const wrongUrl = (server: RedisServer) => `redis://:${encodeURIComponent(WRONG)}@127.0.0.1:${server.port}`;

test.serial(
  'a wrong password in a URL: the error, its cause chain and the logger events hold no trace of it',
  async (t) => {
    const events: LockEvent[] = [];
    configure({ redis: wrongUrl(servers[0]!), logger: (event) => events.push(event) });
    const error = await failedLock('secret-url');
    t.true(error instanceof LockAcquireError);
    t.regex((error as Error).message, /refused the credentials/);
    assertNoSecret(t, exposed(error), WRONG, WRONG_PIECES);
    t.true(events.length > 0);
    assertNoSecret(t, exposed(events) + events.map(describeEvent).join('\n'), WRONG, WRONG_PIECES);
    await close();
  },
);

test.serial(
  'a wrong password in options, and an ioredis client with a wrong password passed in: nothing passes it on',
  async (t) => {
    const events: LockEvent[] = [];
    configure({
      redis: { host: '127.0.0.1', port: servers[0]!.port, password: WRONG },
      logger: (event) => events.push(event),
    });
    assertNoSecret(t, exposed(await failedLock('secret-options')), WRONG, WRONG_PIECES);
    await close();
    const client = new Redis({
      host: '127.0.0.1',
      port: servers[0]!.port,
      password: WRONG,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 1,
    });
    client.on('error', () => undefined);
    t.teardown(() => client.disconnect());
    configure({ redis: client, logger: (event) => events.push(event) });
    assertNoSecret(t, exposed(await failedLock('secret-client')), WRONG, WRONG_PIECES);
    assertNoSecret(t, exposed(events) + events.map(describeEvent).join('\n'), WRONG, WRONG_PIECES);
    await close();
  },
);

test.serial('Redlock servers with a wrong password: the no-majority error names host:port only', async (t) => {
  const events: LockEvent[] = [];
  configure({
    redis: `redis://:${RIGHT}@127.0.0.1:${servers[0]!.port}`,
    redlock: servers.map(wrongUrl),
    logger: (event) => events.push(event),
  });
  const error = await failedLock('secret-redlock', { redlock: true });
  t.regex((error as Error).message, /127\.0\.0\.1:\d+/);
  assertNoSecret(t, exposed(error), WRONG, WRONG_PIECES);
  assertNoSecret(t, exposed(events) + events.map(describeEvent).join('\n'), WRONG, WRONG_PIECES);
  await close();
});

test.serial(
  "a lease and the acquire channel's message, printed whole: nothing of them leads to the client and its password",
  async (t) => {
    const messages: unknown[] = [];
    const channel = tracingChannel('lockweave:acquire');
    const subscriber = {
      start() {},
      end() {},
      asyncStart() {},
      error() {},
      asyncEnd: (message: unknown) => void messages.push(message),
    };
    channel.subscribe(subscriber);
    const rightUrl = (server: RedisServer) => `redis://:${RIGHT}@127.0.0.1:${server.port}`;
    try {
      configure({ redis: rightUrl(servers[0]!), redlock: servers.map(rightUrl) });
      await withLock({ businessFlag: 'secret-lease', key: 'A' }, async (lease) => {
        t.regex(inspect(lease), /^Lease \{ key: 'LOCK_secret-lease_A', fence: undefined, state: 'held' \}$/);
        assertNoSecret(t, exposed(lease), RIGHT);
      });
      const leases = await lock({ businessFlag: 'secret-lease', keys: ['B', 'C'], redlock: true });
      assertNoSecret(t, exposed(leases), RIGHT);
      await leases.release();
      t.true(messages.length > 0);
      assertNoSecret(t, exposed(messages), RIGHT);
    } finally {
      channel.unsubscribe(subscriber);
    }
  },
);

test('a password given as a number, and JSON text holding the key, are not printed in the errors about them', async (t) => {
  const secret = 73519462;
  for (const options of [
    { redis: { host: '127.0.0.1', port: 7000, password: secret } },
    { redis: { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster', sentinelPassword: secret } },
    { redis: { cluster: ['redis://127.0.0.1:7000'], clusterOptions: { redisOptions: { password: secret } } } },
  ]) {
    const error = t.throws(() => configure(options as never), { instanceOf: TypeError });
    t.false(exposed(error).includes(String(secret)), error?.message);
  }
  // V8's JSON.parse message quotes the text: the caller's data, never the error's.
  const error = t.throws(() => readJsonField('password=S3cr3tQuokka', 'orderNo'));
  t.regex(error!.message, /does not parse as JSON/);
  t.false(exposed(error).includes('S3cr3tQuokka'));
});

test('refused configuration never prints a password: raw / @ : % # ? in URLs, Cluster nodes with a password, duplicate Redlock servers', (t) => {
  const secret = 'Xylophone/Quartz@Zebra:Walrus%Yonder#Vortex?Umber';
  const pieces = secret.split(/[/@:%?#]/);
  const raw = (port: number, password = secret) => `redis://user:${password}@127.0.0.1:${port}`;
  const refused: unknown[] = [
    { redis: raw(7000) },
    // A raw / % # ? breaks the URL: refused without echoing it. (A raw @ or : still parses, as the password's: below.)
    ...['/', '%', '#', '?'].map((char) => ({ redis: raw(7000, `Xylophone${char}Quartz`) })),
    { redlock: [raw(7001, 'Xylophone@Quartz'), raw(7002, 'Xylophone:Quartz'), raw(7001, 'Xylophone@Quartz')] },
    { redis: `redis://:${encodeURIComponent(secret)}@127.0.0.1:99999` },
    { redis: `http://user:${encodeURIComponent(secret)}@127.0.0.1:7000` },
    { redis: secret },
    { redis: { host: `user:${secret}@127.0.0.1`, port: 7000 } },
    { redis: { cluster: [{ host: '127.0.0.1', port: 7000, password: secret }] } },
    { redis: { cluster: [`redis://:${encodeURIComponent(secret)}@127.0.0.1:7000`, 'redis://:other@127.0.0.1:7001'] } },
    {
      redis: [
        `redis://:${encodeURIComponent(secret)}@127.0.0.1:7000`,
        `rediss://:${encodeURIComponent(secret)}@127.0.0.1:7001`,
      ],
    },
    { redlock: [raw(7001), raw(7002), raw(7003)] },
    { redlock: [7001, 7002, 7001].map((port) => `redis://:${encodeURIComponent(secret)}@127.0.0.1:${port}`) },
    {
      redlock: [
        'redis://127.0.0.1:7001',
        'redis://127.0.0.1:7002',
        `ftp://:${encodeURIComponent(secret)}@127.0.0.1:7003`,
      ],
    },
    { redis: { host: '127.0.0.1', port: 7000, password: 42, hots: secret } },
  ];
  for (const options of refused) {
    const error = t.throws(() => configure(options as never), { instanceOf: TypeError });
    t.truthy(error?.message);
    for (const piece of [secret, encodeURIComponent(secret), ...pieces]) {
      t.false(exposed(error).includes(piece), `${error?.message} holds ${piece}`);
    }
  }
});

test.serial(
  'a node-redis client whose password the server stops taking: the errors passed on hold no trace of it',
  async (t) => {
    const { createClient } = await import('redis');
    // Its own server: the password is changed under the client, then its connection is cut.
    const own = await startRedisServer();
    const admin = new Redis(own.url);
    const old = 'Narwhal/Pangolin@Quetzal:Manatee%Ocelot';
    await admin.config('SET', 'requirepass', old);
    await admin.auth(old);
    const client = createClient({
      url: `redis://:${encodeURIComponent(old)}@127.0.0.1:${own.port}`,
      socket: { reconnectStrategy: () => 50 },
    });
    client.on('error', () => undefined);
    await client.connect();
    t.teardown(async () => {
      client.destroy();
      admin.disconnect();
      await own.stop();
    });
    const events: LockEvent[] = [];
    configure({ redis: client as never, logger: (event) => events.push(event) });
    await admin.config('SET', 'requirepass', RIGHT);
    await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    const error = await failedLock('secret-node-redis');
    t.true(error instanceof Error);
    const pieces = old.split(/[/@:%]/);
    assertNoSecret(t, exposed(error), old, pieces);
    assertNoSecret(t, exposed(events) + events.map(describeEvent).join('\n'), old, pieces);
    await close();
  },
);
