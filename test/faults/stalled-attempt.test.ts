// A caller whose Redis stops answering mid-run — a partition: no reset, nothing passes either way —
// gives up by its deadline, whichever bound ends its attempts. Two bounds can: the store's own on
// each command (its batch's timer: the client's commandTimeout, else 2 s), and the caller's
// deadline (retries × waitTime plus one wait for the last answer). An attempt is timed by the
// caller only when the store's bound would not settle it first (LockStore.settlesWithin): a long
// deadline leaves it to the store's bound, a deadline shorter than the client's commandTimeout
// keeps the caller's own timer. Both kinds, on the runtime's own connection and on users' clients.
import test, { type ExecutionContext } from 'ava';
import { Redis, type RedisOptions } from 'ioredis';
import { createClient } from 'redis';
import { close, configure, defineLock, LockAcquireError, type ConfigureOptions } from 'lockweave';
import { startFaultProxy } from '../helpers/fault-proxy';
import { uniqueId, useRedis } from '../helpers/redis-fixture';

/** Longer than any test here: the partition never ends while the test runs. */
const PARTITION_MS = 60_000;
/** Scheduling noise on a loaded 2-core machine: an allowance, never an expectation. */
const SLACK_MS = 3_000;

const fixture = useRedis(test);

interface Case {
  readonly title: string;
  /** The client the runtime is configured with, through the proxy at `url`. */
  readonly connect: (url: string) => { redis: NonNullable<ConfigureOptions['redis']>; end(): void };
  readonly retries: number;
  readonly waitTime: number;
}

const ownClient = (options: RedisOptions) => (url: string) => {
  const client = new Redis(url, { autoResendUnfulfilledCommands: false, ...options });
  client.on('error', () => undefined);
  return { redis: client, end: () => client.disconnect() };
};

const CASES: readonly Case[] = [
  {
    title: "the runtime's own connection, a deadline far past its 2 s command bound",
    connect: (url) => ({ redis: url, end: () => undefined }),
    retries: 2,
    waitTime: 3_000,
  },
  {
    title: "a user's ioredis client without a commandTimeout (the store's 2 s bound), a long deadline",
    connect: ownClient({}),
    retries: 2,
    waitTime: 3_000,
  },
  {
    title: "a user's node-redis client (the store's 2 s bound on each tick's commands), a long deadline",
    connect: (url) => {
      const client = createClient({ url });
      client.on('error', () => undefined);
      void client.connect();
      return { redis: client as unknown as NonNullable<ConfigureOptions['redis']>, end: () => client.destroy() };
    },
    retries: 2,
    waitTime: 3_000,
  },
  {
    title: "a user's ioredis client whose commandTimeout (20 s) outlasts the caller's deadline",
    connect: ownClient({ commandTimeout: 20_000 }),
    retries: 1,
    waitTime: 1_000,
  },
];

async function throughProxy(t: ExecutionContext, connect: Case['connect']) {
  const proxy = await startFaultProxy({ host: fixture.server.host, port: fixture.server.port });
  const client = connect(proxy.url);
  configure({ redis: client.redis });
  t.teardown(async () => {
    proxy.resetAll(); // a stalled connection would hold up close()
    await close();
    client.end();
    await proxy.close();
  });
  return proxy;
}

for (const { title, connect, retries, waitTime } of CASES) {
  test.serial(`${title}: a caller whose Redis stops answering gives up by its deadline`, async (t) => {
    const proxy = await throughProxy(t, connect);
    const lock = defineLock({ businessFlag: 'stalled', retries, waitTime });
    // The connection is up and used: the partition comes mid-run, not at the start.
    await (await lock.acquire(uniqueId('warm'))).release();
    proxy.partition(PARTITION_MS);
    const deadlineMs = retries * waitTime + Math.min(Math.max(waitTime, 250), 2_000);
    const started = Date.now();
    const error = await lock.acquire(uniqueId('k')).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    const tookMs = Date.now() - started;
    t.true(error instanceof LockAcquireError, `failed with ${String(error)}`);
    t.true(tookMs < deadlineMs + SLACK_MS, `gave up after ${tookMs} ms; its deadline ${deadlineMs} ms`);
  });
}
