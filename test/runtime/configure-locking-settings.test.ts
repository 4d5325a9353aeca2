// A connection the runtime opens never re-sends a command after its connection closed: a lock
// attempt its caller gave up on could take the key and keep it from everyone until its lease ends.
// A URL's query, ioredis options, a Cluster's options and a Redlock server's URL that ask for
// re-sending (autoResendUnfulfilledCommands: true, a Cluster's retryDelayOnFailover) are refused
// at configure() with a TypeError naming the setting, and the locks stay on the server configured
// before; REDIS_URL asking for it fails the first lock. Saying `false` (the runtime's own) is fine.
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { close, configure, withLock, type ConfigureOptions } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

const run = promisify(execFile);

let servers: RedisServer[];
let looks: Redis[];
test.before(async () => {
  servers = await Promise.all([startRedisServer(), startRedisServer()]);
  looks = servers.map((server) => new Redis(server.url));
});
test.after.always(async () => {
  await close();
  for (const look of looks ?? []) look.disconnect();
  await Promise.all((servers ?? []).map((server) => server.stop()));
});

/** Which server a lock taken now is on. */
async function whereLocks(): Promise<number> {
  const key = uniqueId('order');
  await withLock({ businessFlag: 'settings', key, autoUnlock: false, lockTime: 30_000, retries: 0 }, () => undefined);
  const found = await Promise.all(looks.map((look) => look.exists(`LOCK_settings_${key}`)));
  return found.indexOf(1);
}

const RESEND =
  /autoResendUnfulfilledCommands true is refused: the runtime opens its connections with autoResendUnfulfilledCommands: false/;

test.serial(
  'a URL or options asking to re-send unanswered commands are refused at configure(), and the locks stay where they were',
  async (t) => {
    configure({ redis: servers[0].url });
    t.is(await whereLocks(), 0);
    const other = servers[1];
    const refused: Array<[string, ConfigureOptions, RegExp]> = [
      ['a URL query', { redis: `${other.url}?autoResendUnfulfilledCommands=true` }, RESEND],
      [
        'a URL query written 1',
        { redis: `${other.url}/0?connectTimeout=3000&autoResendUnfulfilledCommands=1` },
        RESEND,
      ],
      ['options', { redis: { host: other.host, port: other.port, autoResendUnfulfilledCommands: true } }, RESEND],
      [
        "a Cluster's node options",
        { redis: { cluster: [other.url], clusterOptions: { redisOptions: { autoResendUnfulfilledCommands: true } } } },
        /configure\(\{ redis \}\): clusterOptions\.redisOptions: autoResendUnfulfilledCommands true is refused/,
      ],
      [
        "a Cluster's retryDelayOnFailover",
        { redis: { cluster: [other.url], clusterOptions: { retryDelayOnFailover: 100 } } },
        /configure\(\{ redis \}\): clusterOptions: retryDelayOnFailover 100 is refused: .*retryDelayOnFailover: 0/,
      ],
      [
        "a Redlock server's URL",
        {
          redlock: [
            `${other.url}?autoResendUnfulfilledCommands=true`,
            'redis://127.0.0.1:6391',
            'redis://127.0.0.1:6392',
          ],
        },
        /configure\(\{ redlock \}\): server 0: autoResendUnfulfilledCommands true is refused/,
      ],
    ];
    for (const [what, options, message] of refused) {
      t.throws(() => configure(options), { instanceOf: TypeError, message }, what);
      t.is(await whereLocks(), 0, `${what}: the locks stay on the server configured before`);
    }
  },
);

test.serial("the runtime's own value, said again, is taken: the locks move to that server", async (t) => {
  const other = servers[1];
  configure({ redis: `${other.url}?autoResendUnfulfilledCommands=false` });
  t.is(await whereLocks(), 1);
  configure({ redis: servers[0].url });
  t.is(await whereLocks(), 0);
  configure({ redis: { host: other.host, port: other.port, autoResendUnfulfilledCommands: false } });
  t.is(await whereLocks(), 1);
});

test('REDIS_URL asking to re-send (no configure()): the first lock fails with a TypeError naming the setting', async (t) => {
  const key = uniqueId('order');
  const { stdout } = await run(process.execPath, [join(__dirname, 'programs', 'lock-once.js'), key], {
    env: { ...process.env, REDIS_URL: `${servers[1].url}?autoResendUnfulfilledCommands=true` },
    timeout: 30_000,
  });
  const result = JSON.parse(stdout.trim()) as { name?: string; message?: string };
  t.is(result.name, 'TypeError', stdout);
  t.regex(result.message ?? '', /^lockweave: REDIS_URL: autoResendUnfulfilledCommands true is refused/);
  t.is(await looks[1].exists(`LOCK_defaultServer_${key}`), 0);
});
