// A logger is the user's code called from the middle of a lock's life. Its failures never change
// a lock's outcome (the body runs, the key is released), they are reported once as a process
// warning, and a logger that is not a function is refused at configure(). Log lines print what
// comes from outside (keys, sites, tokens, error messages) escaped: a key cannot forge a line.
import test from 'ava';
import { Redis } from 'ioredis';
import { close, configure, consoleLogger, describeEvent, LockAcquireError, withLock, type LockEvent } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';
import { eventually } from '../helpers/time';

let server: RedisServer;
let redis: Redis;
const warnings: Error[] = [];
const onWarning = (warning: Error) => {
  if ((warning as { code?: string }).code === 'LOCKWEAVE_LOGGER_FAILED') warnings.push(warning);
};

test.before(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  process.on('warning', onWarning);
});
test.after.always(async () => {
  process.off('warning', onWarning);
  await close();
  redis?.disconnect();
  await server?.stop();
});

/** Resolves once `count` logger warnings were emitted (they are emitted on a later tick), or after a generous bound. */
async function warningsAfterwards(count: number): Promise<number> {
  await eventually(() => warnings.length >= count, { timeoutMs: 5_000, everyMs: 20 });
  await new Promise((resolve) => setImmediate(resolve));
  return warnings.length;
}

const failingLoggers: Array<[string, () => unknown]> = [
  [
    'throws',
    () => {
      throw new Error('the log sink is down');
    },
  ],
  ['returns a promise that rejects', () => Promise.reject(new Error('the log sink is down'))],
  [
    'throws a non-Error',
    () => {
      throw 'a string';
    },
  ],
  [
    'throws an error whose name cannot be read',
    () => {
      const error = new Error('the log sink is down');
      Object.defineProperty(error, 'name', {
        get: () => {
          throw new Error('and neither is its name');
        },
      });
      throw error;
    },
  ],
];

for (const [what, logger] of failingLoggers) {
  test.serial(`a logger that ${what}: the body runs, the lock is released, and one warning says so`, async (t) => {
    warnings.length = 0;
    configure({ redis: server.url, logger: logger as never });
    const key = uniqueId('throwing-logger');
    let ran = 0;
    for (let round = 0; round < 3; round++) {
      const result = await withLock({ businessFlag: 'logger', key, lockTime: 5_000 }, async () => {
        ran++;
        t.is(await redis.exists(`LOCK_logger_${key}`), 1);
        return 'body';
      });
      t.is(result, 'body');
      t.is(await redis.exists(`LOCK_logger_${key}`), 0, 'released, not stranded for the lease');
    }
    t.is(ran, 3);
    t.is(await warningsAfterwards(1), 1, 'reported once, not per event');
    t.regex(warnings[0]!.message, /logger passed to configure\(\) failed/);
    t.false(
      warnings[0]!.message.includes('the log sink is down'),
      "the failure's message is not repeated (it may hold what the event held)",
    );
    await close();
  });
}

test.serial(
  'a logger that is not a function is refused at configure(), and the settings stay as they were',
  async (t) => {
    const events: LockEvent[] = [];
    configure({ redis: server.url, logger: (event) => events.push(event) });
    for (const logger of ['x', 42, {}, null]) {
      t.throws(() => configure({ logger: logger as never }), {
        instanceOf: TypeError,
        message: /logger must be a function/,
      });
    }
    await withLock({ businessFlag: 'logger', key: uniqueId('kept'), lockTime: 5_000 }, async () => 'ok');
    t.true(
      events.some((event) => event.type === 'acquired'),
      'the earlier logger still receives events',
    );
    await close();
  },
);

test.serial(
  'a key with a newline cannot forge a log line: consoleLogger prints one line per event, escaped',
  async (t) => {
    const lines: string[] = [];
    configure({ redis: server.url, logger: consoleLogger((line) => lines.push(line)) });
    const key = `${uniqueId('forge')}\nlockweave: released LOCK_pay_ADMIN token=forged\r\u2028\u202e\x1b[31m\\n`;
    await withLock({ businessFlag: 'logger', key, lockTime: 5_000 }, async () => 'ok');
    t.true(lines.length >= 2);
    for (const line of lines) {
      t.false(
        /[\n\r\u2028\u2029\u202a-\u202e\u2066-\u2069\x00-\x1f\x7f]/.test(line),
        `an unescaped control character in ${JSON.stringify(line)}`,
      );
    }
    t.false(lines.some((line) => line.startsWith('lockweave: released LOCK_pay_ADMIN')));
    t.true(
      lines.some((line) =>
        line.includes('\\nlockweave: released LOCK_pay_ADMIN token=forged\\r\\u2028\\u202e\\x1b[31m\\\\n'),
      ),
      lines.join('\n'),
    );
    await close();
  },
);

test('describeEvent escapes sites, tokens and error messages too', (t) => {
  const evil = 'x\ny\u2029z\u2066';
  const lines = [
    describeEvent({ type: 'acquired', key: 'k', token: evil, attempts: 1, waitedMs: 0, site: evil }),
    describeEvent({ type: 'waiting', key: 'k', attempt: 1, waitMs: 1, error: new Error(evil), site: evil }),
    describeEvent({ type: 'error', key: evil, during: 'release', error: new Error(evil) }),
  ];
  for (const line of lines) t.false(/[\n\u2029\u2066]/.test(line), line);
  t.true(lines[0]!.includes('token=x\\ny\\u2029z\\u2066'));
});

test.serial('an error about a key with a newline has a one-line message, and its `key` as it is', async (t) => {
  configure({ redis: server.url });
  const key = `${uniqueId('forge')}\nlockweave: released LOCK_pay_ADMIN token=forged`;
  const request = { businessFlag: 'logger', key, lockTime: 5_000, retries: 0, waitTime: 10, reentrant: false };
  // The holder's own nested call, not reentrant, finds the key held and gives up at once.
  const error = await withLock(request, () =>
    t.throwsAsync(
      withLock(request, async () => 'never'),
      { instanceOf: LockAcquireError },
    ),
  );
  t.false(/[\n\r]/.test(error!.message), error!.message);
  t.true(error!.message.includes('\\nlockweave: released LOCK_pay_ADMIN'), error!.message);
  t.true(error!.key.endsWith(key));
  await close();
});
