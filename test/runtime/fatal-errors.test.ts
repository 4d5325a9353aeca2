// What counts as fatal — an error trying again cannot fix, after which commands fail at once and a
// connection the runtime opened stops — and what does not:
//   - a DNS or socket failure never is, whatever the host is called: a host name holding "tls",
//     "ssl", "certificate" or "noauth" is not a diagnosis (a resolver hiccup at start-up stopped the
//     runtime's connection for good with "the TLS handshake failed");
//   - a credential refused to a client of the user's (an ACL user turned off and on again, a password
//     rotated) holds only until that client is connected again by its own reconnects: then locking
//     goes on, for an ioredis and a node-redis client.
import test from 'ava';
import dns from 'node:dns';
import { Redis } from 'ioredis';
import { close, configure, defineLock, RedisConnectionError } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/time';

const USER = 'locker';
const PASSWORD = 'Fatal-Errors-Pw9';

let server: RedisServer;
let admin: Redis;

test.before(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  await admin.acl('SETUSER', USER, 'on', `>${PASSWORD}`, '~*', '&*', '+@all');
});
test.after.always(async () => {
  await close();
  admin?.disconnect();
  await server?.stop();
});

/** Whether the caller was told that trying again cannot help: its error's cause is a fatal RedisConnectionError. */
function fatalCause(error: Error): boolean {
  return error.cause instanceof RedisConnectionError && error.cause.fatal;
}

/** Resolves `host` to the loopback address, after failing its first `failures` lookups with EAI_AGAIN. */
function flakyDns(host: string, failures: number): () => void {
  const lookup = dns.lookup;
  let left = failures;
  const flaky = ((name: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const settings = typeof options === 'function' ? {} : options;
    if (name !== host) return (lookup as (...args: unknown[]) => void)(name, settings, done);
    if (left-- > 0) {
      const error = Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), {
        code: 'EAI_AGAIN',
        syscall: 'getaddrinfo',
        hostname: host,
      });
      return process.nextTick(done, error);
    }
    return (lookup as (...args: unknown[]) => void)('127.0.0.1', settings, done);
  }) as typeof dns.lookup;
  dns.lookup = flaky;
  return () => {
    dns.lookup = lookup;
  };
}

/** Locks `key` within `rounds` calls, half a second apart; the errors met on the way. */
async function lockWithin(flag: string, rounds: number): Promise<{ locked: boolean; errors: Error[] }> {
  const errors: Error[] = [];
  const lock = defineLock({ businessFlag: flag, retries: 2, waitTime: 300 });
  for (let round = 0; round < rounds; round++) {
    try {
      const lease = await lock.acquire('A');
      await lease.release();
      return { locked: true, errors };
    } catch (error) {
      errors.push(error as Error);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return { locked: false, errors };
}

for (const host of ['redis-tls.internal', 'ssl-cache', 'certificate-store.internal', 'redis-noauth']) {
  test.serial(
    `a transient DNS failure of ${host} is not fatal: the runtime's connection locks once it resolves`,
    async (t) => {
      const restore = flakyDns(host, 3);
      t.teardown(restore);
      configure({ redis: `redis://${host}:${server.port}` });
      const { locked, errors } = await lockWithin('dns-flake', 20);
      t.true(locked, errors.map((error) => error.message).join('\n'));
      for (const error of errors) {
        t.false(fatalCause(error), error.message);
        t.notRegex(error.message, /TLS handshake|refused the credentials/);
      }
      await close();
    },
  );
}

/** Turns the user off until `restore` is called; its open connections are cut, so each must log in again. */
async function userOff(): Promise<() => Promise<void>> {
  await admin.acl('SETUSER', USER, 'off');
  await admin.client('KILL', 'USER', USER);
  return async () => void (await admin.acl('SETUSER', USER, 'on'));
}

test.serial(
  'an ioredis client of the user refused its credentials for a while: locking goes on once it is back',
  async (t) => {
    const client = new Redis({
      port: server.port,
      username: USER,
      password: PASSWORD,
      retryStrategy: () => 100,
      autoResendUnfulfilledCommands: false,
    });
    client.on('error', () => undefined);
    t.teardown(() => client.disconnect());
    configure({ redis: client });
    t.true((await lockWithin('rotated-ioredis', 1)).locked);
    const userOn = await userOff();
    // Refused, and said to be fatal: the caller does not wait its whole bound.
    await until(
      async () => {
        const { errors } = await lockWithin('rotated-ioredis', 1);
        return errors.some((error) => /refused the credentials/.test(error.message) && fatalCause(error));
      },
      { what: 'the credentials refused, fatally', timeoutMs: 20_000 },
    );
    await userOn();
    await until(() => client.status === 'ready', { what: 'the client reconnected by itself', timeoutMs: 20_000 });
    const { locked, errors } = await lockWithin('rotated-ioredis', 10);
    t.true(locked, errors.map((error) => error.message).join('\n'));
    await close();
  },
);

test.serial(
  'a node-redis client of the user refused its credentials for a while: locking goes on once it is back',
  async (t) => {
    const { createClient } = await import('redis');
    const client = createClient({
      url: `redis://${USER}:${PASSWORD}@127.0.0.1:${server.port}`,
      socket: { reconnectStrategy: () => 100 },
    });
    client.on('error', () => undefined);
    await client.connect();
    t.teardown(() => client.destroy());
    configure({ redis: client as never });
    t.true((await lockWithin('rotated-node-redis', 1)).locked);
    const userOn = await userOff();
    await until(
      async () => {
        const { errors } = await lockWithin('rotated-node-redis', 1);
        return errors.some((error) => /refused the credentials/.test(error.message) && fatalCause(error));
      },
      { what: 'the credentials refused, fatally', timeoutMs: 20_000 },
    );
    await userOn();
    await until(() => client.isReady, { what: 'the client reconnected by itself', timeoutMs: 20_000 });
    const { locked, errors } = await lockWithin('rotated-node-redis', 10);
    t.true(locked, errors.map((error) => error.message).join('\n'));
    await close();
  },
);
