// configure() takes a server only when it is named, and keeps it until another is: options that
// name no server or name it wrongly, URLs that cannot work and unknown keys are a TypeError at
// configure() (not a connection to localhost found out at the first lock), and a later call that
// names no server — a release channel, a logger — never moves locks to REDIS_URL or localhost.
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { close, configure, MemoryLockStore, withLock, type ConfigureOptions } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

const run = promisify(execFile);

/** `named` is the server configure() names; `fallback` is what REDIS_URL points at (the default the old code fell back to). */
let named: RedisServer;
let fallback: RedisServer;
let lookNamed: Redis;
let lookFallback: Redis;
const savedRedisUrl = process.env.REDIS_URL;

test.before(async () => {
  [named, fallback] = await Promise.all([startRedisServer(), startRedisServer()]);
  lookNamed = new Redis(named.url);
  lookFallback = new Redis(fallback.url);
  process.env.REDIS_URL = fallback.url;
});
test.after.always(async () => {
  if (savedRedisUrl === undefined) delete process.env.REDIS_URL;
  else process.env.REDIS_URL = savedRedisUrl;
  await close();
  lookNamed?.disconnect();
  lookFallback?.disconnect();
  await Promise.all([named?.stop(), fallback?.stop()]);
});

/** Takes a lock and tells which server held its key while the body ran. */
async function whereLocks(label: string): Promise<'named' | 'fallback' | 'neither'> {
  const key = uniqueId(label);
  return (await withLock({ businessFlag: 'where', key, lockTime: 5_000, retries: 0 }, async () => {
    const [onNamed, onFallback] = await Promise.all([
      lookNamed.exists(`LOCK_where_${key}`),
      lookFallback.exists(`LOCK_where_${key}`),
    ]);
    return onNamed ? 'named' : onFallback ? 'fallback' : 'neither';
  }))!;
}

test.serial(
  'a later configure() that names no server keeps the configured one: releaseChannel, logger, defaults, prefix',
  async (t) => {
    configure({ redis: named.url });
    t.is(await whereLocks('first'), 'named');
    for (const later of [
      { releaseChannel: 'other:released:' },
      { logger: () => undefined },
      { defaults: { lockTime: 4_000 } },
      { prefix: 'LOCK_' },
      {},
    ] as ConfigureOptions[]) {
      configure(later);
      t.is(await whereLocks('later'), 'named', `after configure(${JSON.stringify(Object.keys(later))})`);
    }
    await close();
  },
);

test.serial('options that name the server reach it; a refused call after them changes nothing', async (t) => {
  configure({ redis: { host: '127.0.0.1', port: named.port } });
  t.is(await whereLocks('options'), 'named');
  t.throws(() => configure({ redis: {} }), { instanceOf: TypeError });
  t.throws(() => configure({ releaseChannel: 'x:', logger: 'x' as never }), { instanceOf: TypeError });
  t.is(await whereLocks('after-refusal'), 'named');
  // A port given as a string (from an environment variable) is read as its number.
  configure({ redis: { host: '127.0.0.1', port: String(named.port) as never } });
  t.is(await whereLocks('string-port'), 'named');
  await close();
});

test.serial(
  'a store named after redis takes over, and redis named after a store takes back: each call replaces both',
  async (t) => {
    configure({ redis: named.url });
    configure({ store: new MemoryLockStore() });
    t.is(await whereLocks('memory'), 'neither');
    configure({ releaseChannel: 'again:' });
    t.is(await whereLocks('memory-kept'), 'neither', 'a release channel does not replace a store passed in');
    configure({ redis: named.url });
    t.is(await whereLocks('back'), 'named');
    await close();
  },
);

test.serial('{ path } names a server on a Unix socket, and locks go there', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lockweave-sock-'));
  const path = join(dir, 'redis.sock');
  const own = await startRedisServer(['--unixsocket', path, '--unixsocketperm', '700']);
  const look = new Redis(own.url);
  try {
    configure({ redis: { path } });
    const key = uniqueId('socket');
    const seen = await withLock({ businessFlag: 'where', key, lockTime: 5_000, retries: 0 }, () =>
      look.exists(`LOCK_where_${key}`),
    );
    t.is(seen, 1);
  } finally {
    await close();
    look.disconnect();
    await own.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

const refusals: Array<[string, ConfigureOptions, RegExp]> = [
  ['{ redis: undefined }', { redis: undefined }, /redis is undefined, which names no server/],
  ['{ store: undefined }', { store: undefined }, /store is undefined, which names no server/],
  ['{ redis: null }', { redis: null as never }, /got null/],
  ['{ redis: {} }', { redis: {} }, /names no server/],
  [
    '{ redis: { url } }',
    { redis: { url: 'redis://127.0.0.1:6379' } as never },
    /url is not an ioredis option; pass the URL itself/,
  ],
  [
    'a typo: { hots, port }',
    { redis: { hots: '127.0.0.1', port: 6380 } as never },
    /hots is not an ioredis option; did you mean host\?/,
  ],
  ['{ port } alone', { redis: { port: 6380 } }, /names no server.*host: '127\.0\.0\.1'/],
  [
    '{ host: undefined, port } (an unset variable)',
    { redis: { host: undefined, port: 6380 } },
    /redis: host is undefined, which names nothing/,
  ],
  ['an empty host', { redis: { host: '', port: 6380 } }, /host must be a host name/],
  ['a URL as host', { redis: { host: 'redis://127.0.0.1:6379' } }, /host is a URL, not a host name/],
  ['port 0', { redis: { host: '127.0.0.1', port: 0 } }, /port must be a port from 1 to 65535; got 0/],
  ['port 99999', { redis: { host: '127.0.0.1', port: 99_999 } }, /port must be a port from 1 to 65535/],
  ['sentinels without name', { redis: { sentinels: [{ host: '127.0.0.1', port: 26379 }] } }, /sentinels need name/],
  [
    'sentinels beside host',
    { redis: { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster', host: '127.0.0.1' } },
    /host beside sentinels is not read/,
  ],
  [
    'a sentinel with a typo',
    { redis: { sentinels: [{ hots: '127.0.0.1', port: 26379 }] as never, name: 'mymaster' } },
    /hots is not a Sentinel address key; did you mean host\?/,
  ],
  [
    'a URL with port 99999',
    { redis: 'redis://127.0.0.1:99999' },
    /is not a redis:\/\/ or rediss:\/\/ URL: it does not parse/,
  ],
  ['a URL with port 0', { redis: 'redis://127.0.0.1:0' }, /port must be a port from 1 to 65535/],
  [
    'an http:// URL',
    { redis: 'http://127.0.0.1:6379' },
    /is not a redis:\/\/ or rediss:\/\/ URL \(http: is not redis: or rediss:\)/,
  ],
  ['"not a url"', { redis: 'not a url' }, /is not a redis:\/\/ or rediss:\/\/ URL: it does not parse/],
  // The parser reads `default:` as the scheme: the user name is not printed as one.
  [
    'a URL without its scheme, user and password first',
    { redis: 'default:Sup3rSecret@127.0.0.1:6379' },
    /is not a redis:\/\/ or rediss:\/\/ URL: it starts with no scheme \(write redis:\/\/host:port\)$/,
  ],
  [
    'ioredis options asking for integer replies as strings',
    { redis: { host: '127.0.0.1', port: 6379, stringNumbers: true } },
    /stringNumbers true is refused: the runtime opens its connections with stringNumbers: false\. With integer replies as strings the lock's replies are misread/,
  ],
  [
    'a URL asking for integer replies as strings',
    { redis: 'redis://127.0.0.1:6379/?stringNumbers=true' },
    /stringNumbers true is refused/,
  ],
  ['a socket path as a string', { redis: '/tmp/redis.sock' }, /for a Unix socket, pass options \{ path/],
  [
    'a unix: URL',
    { redis: 'unix:///tmp/redis.sock' },
    /unix: is not redis: or rediss:; for a Unix socket, pass options \{ path/,
  ],
  ['a URL without a host', { redis: 'redis:///0' }, /names no host/],
  ['a URL with a port and no host', { redis: 'redis://:6379' }, /does not parse/],
  ['a URL whose path is not a database', { redis: 'redis://127.0.0.1:6379/x' }, /must be a database number/],
  [
    'a URL whose query names the host',
    { redis: 'redis://127.0.0.1:6379/?host=10.0.0.1' },
    /query parameter host is not read/,
  ],
  [
    'a URL whose query has a typo',
    { redis: 'redis://127.0.0.1:6379/?conectTimeout=5' },
    /conectTimeout is not an ioredis option; did you mean connectTimeout\?/,
  ],
  // A key given undefined names nothing (an unset environment variable): never "the default".
  ['{ prefix: undefined }', { prefix: undefined }, /configure\(\): prefix is undefined, which names nothing/],
  ['{ defaults: undefined }', { defaults: undefined }, /configure\(\): defaults is undefined, which names nothing/],
  [
    '{ releaseChannel: undefined }',
    { releaseChannel: undefined },
    /configure\(\): releaseChannel is undefined, which names nothing/,
  ],
  [
    '{ defaults: { redlock: undefined } }',
    { defaults: { waitTime: 1_000, redlock: undefined } },
    /defaults: redlock is undefined, which names nothing/,
  ],
  ['{ defaults: { fencing: undefined } }', { defaults: { fencing: undefined } }, /defaults: fencing is undefined/],
  ['{ defaults: { replicas: undefined } }', { defaults: { replicas: undefined } }, /defaults: replicas is undefined/],
  [
    'a port that is undefined',
    { redis: { host: '127.0.0.1', port: undefined } },
    /redis: port is undefined, which names nothing/,
  ],
  ['a db that is undefined', { redis: { host: '127.0.0.1', db: undefined } }, /redis: db is undefined/],
  [
    'a password that is undefined',
    { redis: { host: '127.0.0.1', password: undefined } },
    /redis: password is undefined/,
  ],
  [
    'a Sentinel port that is undefined',
    { redis: { sentinels: [{ host: '127.0.0.1', port: undefined }], name: 'mymaster' } },
    /sentinels\[0\]: port is undefined/,
  ],
  [
    'clusterOptions that are undefined',
    { redis: { cluster: ['redis://127.0.0.1:7000'], clusterOptions: undefined } },
    /clusterOptions is undefined/,
  ],
  [
    'a Cluster node option that is undefined',
    { redis: { cluster: ['redis://127.0.0.1:7000'], clusterOptions: { redisOptions: { password: undefined } } } },
    /redisOptions: password is undefined/,
  ],
  // A value of the wrong type would reach ioredis, and throw there, outside any caller.
  [
    'connectTimeout as a string',
    { redis: { host: '127.0.0.1', connectTimeout: '3000' as never } },
    /redis: connectTimeout must be a number; got a string/,
  ],
  [
    'reconnectOnError: true',
    { redis: { host: '127.0.0.1', reconnectOnError: true as never } },
    /redis: reconnectOnError must be a function or null; got boolean true/,
  ],
  [
    'a retryStrategy that is no function',
    { redis: { host: '127.0.0.1', retryStrategy: 100 as never } },
    /retryStrategy must be a function/,
  ],
  [
    'enableReadyCheck as a string',
    { redis: { host: '127.0.0.1', enableReadyCheck: 'false' as never } },
    /enableReadyCheck must be true or false; got a string/,
  ],
  [
    'a negative commandTimeout',
    { redis: { host: '127.0.0.1', commandTimeout: -1 } },
    /commandTimeout must be a number >= 0/,
  ],
  [
    'a Cluster option of the wrong type',
    { redis: { cluster: ['redis://127.0.0.1:7000'], clusterOptions: { slotsRefreshTimeout: '1000' as never } } },
    /clusterOptions: slotsRefreshTimeout must be a number/,
  ],
  [
    'a Cluster node option of the wrong type',
    {
      redis: {
        cluster: ['redis://127.0.0.1:7000'],
        clusterOptions: { redisOptions: { reconnectOnError: 1 as never } },
      },
    },
    /redisOptions: reconnectOnError must be a function or null/,
  ],
  [
    'a URL query naming a function-typed option',
    { redis: 'redis://127.0.0.1:6379?reconnectOnError=1' },
    /the query parameter reconnectOnError cannot be given in a URL: it takes a function or null/,
  ],
  [
    'a URL query whose number is not one',
    { redis: 'redis://127.0.0.1:6379?connectTimeout=3s' },
    /the query parameter connectTimeout must be a number/,
  ],
  [
    'a URL query whose flag is not one',
    { redis: 'redis://127.0.0.1:6379?enableReadyCheck=no' },
    /the query parameter enableReadyCheck must be true or false \(or 1 or 0\)/,
  ],
  ['a URL query with an unknown family', { redis: 'redis://127.0.0.1:6379?family=5' }, /family must be one of 0, 4, 6/],
  [
    'a boolean lock default given as a string',
    { defaults: { autoUnlock: 'false' as never } },
    /configure\(\): defaults: option autoUnlock must be true or false, got the string "false"/,
  ],
  [
    'watchdog given as 0',
    { defaults: { watchdog: 0 as never } },
    /defaults: option watchdog must be true or false, got 0/,
  ],
  ['a prefix that is not one', { prefix: 'shop order:' }, /configure\(\): prefix: "shop order:" is not a valid prefix/],
  [
    'an unknown key of configure()',
    { redsi: 'redis://127.0.0.1:6379' } as never,
    /redsi is not an option of configure\(\); did you mean redis\?/,
  ],
  [
    'an unknown lock default',
    { defaults: { lockTme: 100 } } as never,
    /lockTme is not a lock option; did you mean lockTime\?/,
  ],
  ['onFail among the defaults', { defaults: { onFail: 'skip' } } as never, /defaults cannot set onFail/],
  ['a prefix among the defaults', { defaults: { prefix: 'APP_' } } as never, /the prefix is configure\(\{ prefix \}\)/],
  ['a logger that is not a function', { logger: 'x' as never }, /logger must be a function/],
  ['an empty releaseChannel', { releaseChannel: '' }, /releaseChannel must be a non-empty string/],
  ['a store that is not one', { store: {} as never }, /store must be a LockStore/],
  [
    'a Redlock server with port 99999',
    { redlock: ['redis://127.0.0.1:7001', 'redis://127.0.0.1:7002', 'redis://127.0.0.1:99999'] },
    /server 2 is not a redis:\/\/ or rediss:\/\/ URL: it does not parse/,
  ],
  [
    'a Cluster node with a typo',
    { redis: { cluster: [{ hots: '127.0.0.1', port: 7000 }] } as never },
    /`cluster`\[0\] must be a redis:\/\/ URL or \{ host, port \}; got also hots/,
  ],
  [
    'a Cluster option with a typo',
    { redis: { cluster: ['redis://127.0.0.1:7000'], clusterOptions: { scaleRead: 'slave' } } as never },
    /scaleRead is not an ioredis Cluster option; did you mean scaleReads\?/,
  ],
  [
    'a Cluster node option naming a host',
    { redis: { cluster: ['redis://127.0.0.1:7000'], clusterOptions: { redisOptions: { host: '10.0.0.1' } } } as never },
    /host is not read for a Cluster's nodes/,
  ],
  // A hole in a list is an entry too: refused here, not found out as a TypeError of ioredis's at the first lock.
  [
    'a hole among the Sentinels',
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case
    { redis: { sentinels: [, { host: '127.0.0.1', port: 26379 }] as never, name: 'mymaster' } },
    /sentinels\[0\] must be \{ host, port \}; got undefined/,
  ],
  [
    'a hole among the Redlock servers',
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case
    { redlock: [, 'redis://127.0.0.1:7001', 'redis://127.0.0.1:7002', 'redis://127.0.0.1:7003'] as never },
    /server 0 is not a redis:\/\/ URL.*got undefined/,
  ],
  [
    'a hole among the Cluster nodes',
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case
    { redis: { cluster: ['redis://127.0.0.1:7000', , 'redis://127.0.0.1:7002'] as never } },
    /`cluster`\[1\] must be a redis:\/\/ URL or \{ host, port \}; got undefined/,
  ],
  [
    'a Sentinel role that locks on a replica',
    { redis: { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster', role: 'slave' } },
    /role must be "master"; got a string of 5 character\(s\): locks are taken on the primary/,
  ],
  ['the same in a URL', { redis: 'redis://127.0.0.1:6379?role=slave' }, /role must be "master"/],
];

for (const [what, options, message] of refusals) {
  test(`refuses ${what} with a TypeError at configure()`, (t) => {
    t.throws(() => configure(options), { instanceOf: TypeError, message });
  });
}

test.serial(
  'without configure(), a REDIS_URL that cannot work fails the first lock with a TypeError, not "unreachable"',
  async (t) => {
    const program = join(__dirname, 'programs', 'fail-and-exit.js');
    // An empty REDIS_URL too (a secret that did not render): it names no server, and is not the default.
    for (const url of ['redis://127.0.0.1:99999', 'http://127.0.0.1:6379', 'not a url', '']) {
      const { stdout } = await run(process.execPath, [program], {
        env: { ...process.env, REDIS_URL: url },
        timeout: 20_000,
      });
      t.is(stdout.trim(), 'TypeError', url);
    }
  },
);

test.serial(
  'the options object changing after configure() moves no lock: the server checked is the server used',
  async (t) => {
    const options = { host: '127.0.0.1', port: named.port };
    configure({ redis: options });
    options.port = fallback.port; // the caller's object, changed later (a shared config object, a test's setup)
    t.is(await whereLocks('changed-after'), 'named');
    await close(); // a new connection is made from what configure() took, not from the object now
    t.is(await whereLocks('changed-after-close'), 'named');
  },
);

test.serial('a later configure({ defaults }) changes the defaults it names and keeps the others', async (t) => {
  configure({ redis: named.url, defaults: { fencing: true, lockTime: 6_000 } });
  configure({ defaults: { waitTime: 2_000 } }); // another module tunes the wait
  const fence = await withLock({ businessFlag: 'defaults-kept', key: uniqueId('fence') }, (lease) => lease.fence);
  t.is(typeof fence, 'number', 'fencing: true is still a default');
  configure({ defaults: { fencing: false } });
  t.is(await withLock({ businessFlag: 'defaults-kept', key: uniqueId('fence') }, (lease) => lease.fence), undefined);
});

test.serial('what names a server is taken (no connection is opened before the first lock)', (t) => {
  const accepted: ConfigureOptions[] = [
    { redis: 'redis://127.0.0.1:6390' },
    { redis: 'rediss://user:p%40ss%2Fw%3Ard@redis.internal:6390/3' },
    { redis: 'redis://[::1]:6390/2?family=6&connectionName=x' },
    { redis: { host: 'redis.internal', port: '6390' as never, db: '2' as never } },
    { redis: { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster', natMap: {} } },
    { redis: { path: '/tmp/redis.sock' } },
    { redis: ['redis://127.0.0.1:7000', 'redis://127.0.0.1:7001'] },
    { redlock: ['redis://127.0.0.1:7001', 'redis://127.0.0.1:7002', 'redis://:p%40ss@127.0.0.1:7003'] },
    { redlock: undefined },
  ];
  for (const options of accepted) t.notThrows(() => configure(options), JSON.stringify(options));
  configure({ redis: named.url });
});
