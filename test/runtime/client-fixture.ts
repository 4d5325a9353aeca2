// The runtime configured on a client a test connected as a user would — node-redis 5 or 6, Valkey
// GLIDE — on one server per test file, with an ioredis client beside it for looking at keys: the
// shared lock semantics (lock-semantics.ts) through that client, and how the runtime fails and
// recovers on it (errors that name the server within the wait bound, locking again after a
// restart, a failed release sent again, a process that exits without close()). The ioredis side
// of the same promises: redis-lock.test.ts and connection.test.ts.
import type { TestFn } from 'ava';
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  close,
  configure,
  defineLock,
  LockAcquireError,
  RedisConnectionError,
  type ConfigureOptions,
  type LockEvent,
} from 'lockweave';
import { redisServerVersion, startRedisServer, type RedisServer } from '../helpers/redis-server';
import { eventually } from '../helpers/time';
import { lockSemantics } from './lock-semantics';

/** A client the test connected, as configure({ redis }) takes it, and how the test lets it go. */
export interface ConnectedClient {
  readonly client: NonNullable<ConfigureOptions['redis']>;
  close(): unknown;
}

/** A client family under test: its name in the test programs (programs/*.js) and how to connect one. */
export interface ClientFamily {
  /** `redis` (node-redis 6), `redis5` or `glide`. */
  readonly name: string;
  connect(server: RedisServer): Promise<ConnectedClient>;
}

/** A node-redis `createClient`, of whichever version the test file imports. */
type CreateClient = (options: { url: string }) => {
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
};

/** node-redis of the version `createClient` comes from, connected as a user would. */
export function nodeRedisFamily(name: 'redis' | 'redis5', createClient: CreateClient): ClientFamily {
  return {
    name,
    async connect(server) {
      const client = createClient({ url: server.url });
      client.on('error', () => undefined);
      await client.connect();
      return { client: client as unknown as ConnectedClient['client'], close: () => client.destroy() };
    },
  };
}

/** What a run of the shared promises locks through, looks at keys with, and stops at its end. */
export interface Locking {
  readonly connected: ConnectedClient;
  /** A plain ioredis client (or Cluster) for looking at keys; not the runtime's. */
  readonly look: { get(key: string): Promise<string | null>; pttl(key: string): Promise<number>; disconnect(): void };
  stop(): Promise<void>;
}

/**
 * The shared promises (lock-semantics.ts) with the runtime configured on what `open` connects (a
 * server's client, a Cluster's). One test file per client: configure() is process-wide.
 */
export function lockSemanticsThrough(test: TestFn, open: () => Promise<Locking>): void {
  const events: LockEvent[] = [];
  let locking: Locking | undefined;
  test.before(async (t) => {
    t.log(`server: ${redisServerVersion()}`);
    locking = await open();
    configure({ redis: locking.connected.client, logger: (event) => events.push(event) });
  });
  test.after.always(async () => {
    await close();
    await locking?.connected.close();
    locking?.look.disconnect();
    await locking?.stop();
  });
  lockSemantics(test, () => ({
    holder: (key) => locking!.look.get(key),
    pttl: (key) => locking!.look.pttl(key),
    events,
  }));
}

/** The shared promises through a client of `family` on one server. */
export function clientLockSemantics(test: TestFn, family: ClientFamily): void {
  lockSemanticsThrough(test, async () => {
    const server = await startRedisServer();
    return { connected: await family.connect(server), look: new Redis(server.url), stop: () => server.stop() };
  });
}

/** Runs `body` with the runtime configured on a new client of `family` to `server`, letting both go after. */
export async function configuredOn(
  family: ClientFamily,
  server: RedisServer,
  body: () => Promise<void>,
): Promise<void> {
  const connected = await family.connect(server);
  try {
    configure({ redis: connected.client });
    await body();
  } finally {
    await close();
    await connected.close();
    await server.stop();
  }
}

/** How the runtime fails and recovers on a client of `family` (serial tests: each configures the runtime). */
export function clientConnectionPromises(test: TestFn, family: ClientFamily): void {
  test.serial(
    `${family.name}: the server going down: LockAcquireError within the wait bound, its cause naming the server; locking again once it is back`,
    async (t) => {
      const own = await startRedisServer();
      await configuredOn(family, own, async () => {
        const L = defineLock({ businessFlag: `${family.name}Down`, retries: 10, waitTime: 200 });
        await (await L.acquire('A'))!.release();
        await own.kill();
        const started = Date.now();
        const error = await t.throwsAsync(L.acquire('A'), { instanceOf: LockAcquireError });
        const waited = Date.now() - started;
        t.true(error!.cause instanceof RedisConnectionError, String(error!.cause));
        t.regex(error!.message, new RegExp(`Redis at 127\\.0\\.0\\.1:${own.port} is unreachable`));
        t.true(
          waited < 2_000 + 2_000 + 2_000,
          `the wait bound (2 s) plus one command timeout and slack; took ${waited} ms`,
        );
        await own.restart();
        const again = defineLock({ businessFlag: `${family.name}Down`, retries: 40, waitTime: 250 });
        const lease = await again.acquire('A');
        t.true(lease!.held, 'the client reconnected by itself and the lock works again');
        await lease!.release();
      });
    },
  );

  test.serial(
    `${family.name}: a release that failed while the server was down is sent again once it is back`,
    async (t) => {
      const own = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always']);
      await configuredOn(family, own, async () => {
        const L = defineLock({ businessFlag: `${family.name}Resend`, lockTime: 60_000 });
        const lease = await L.acquire('A');
        const key = lease!.key;
        const look = new Redis(own.url);
        await look.set('marker', 'kept'); // shows the data outlived the restart (the AOF)
        look.disconnect();
        await own.kill();
        await lease!.release(); // fails: the server is down; never throws
        await own.restart();
        const after = new Redis(own.url);
        try {
          t.is(await after.get('marker'), 'kept');
          await eventually(async () => (await after.get(key)) === null, { timeoutMs: 15_000, everyMs: 50 });
          t.is(
            await after.get(key),
            null,
            'the key was released soon after the restart, not at the end of its 60 s lease',
          );
        } finally {
          after.disconnect();
        }
      });
    },
  );

  clientExitsWithoutClose(test, family.name);
}

/** A process on a client of `family` whose server goes away gets its error and exits without lockweave's close(). */
export function clientExitsWithoutClose(test: TestFn, family: string): void {
  test.serial(
    `${family}: with the server gone, the process gets its LockAcquireError and exits without close() (the subscriber does not hold it)`,
    async (t) => {
      const own = await startRedisServer();
      const child = spawn(process.execPath, [join(__dirname, 'programs', 'client-down-exit.js'), family], {
        env: { ...process.env, REDIS_URL: own.url },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout!.on('data', (data) => {
        out += data;
        if (out === 'ready\n') void own.kill().then(() => child.stdin!.write('down\n'));
      });
      const code = await new Promise<number | string | null>((resolve) => {
        const killer = setTimeout(() => (child.kill('SIGKILL'), resolve('killed after 20 s: it hung')), 20_000);
        child.once('exit', (exitCode) => (clearTimeout(killer), resolve(exitCode)));
      });
      await own.stop();
      t.is(code, 0, out);
      t.regex(out, new RegExp(`LockAcquireError after \\d+ ms: .*Redis at 127\\.0\\.0\\.1:${own.port} is unreachable`));
    },
  );
}
