// A release announced while the waiter's subscriber is cut off reaches nobody in its process. The
// waiter must not then sleep on to its next scheduled attempt (waitTime: 5 s by default, 20 s
// here) while the key is free: once its subscriber is subscribed again, it looks again. And a
// key whose SUBSCRIBE was lost with the connection is subscribed again when the subscriber is back,
// so the next release is heard (ioredis sends that SUBSCRIBE again by itself; node-redis did not,
// and its waiter heard nothing more). Each case on the client families that say when their subscriber
// is back: the runtime's own ioredis connection (a URL), a user's ioredis client, a user's
// node-redis client. The proxy in front of Redis (test/helpers/fault-proxy.ts) does the cutting.
import test, { type ExecutionContext } from 'ava';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import {
  close,
  configure,
  DEFAULT_RELEASE_CHANNEL,
  defineLock,
  type ConfigureOptions,
  type LockEvent,
} from 'lockweave';
import { startFaultProxy } from '../helpers/fault-proxy';
import { useRedis } from '../helpers/redis-fixture';
import { until } from '../helpers/time';

/** Each waiter's scheduled attempts: only a look on the subscriber's return gets it the key sooner. */
const WAIT_TIME = 20_000;
/** What "soon" means on a loaded 2-core machine: far below WAIT_TIME, far above a reconnect. */
const SOON_MS = 8_000;

// The runtime is configured again by each test, on a client through its own proxy.
const fixture = useRedis(test);

type Connect = (url: string) => Promise<{ redis: NonNullable<ConfigureOptions['redis']>; close(): void }>;
const FAMILIES: Record<string, Connect> = {
  url: async (url) => ({ redis: url, close: () => undefined }),
  ioredis: async (url) => {
    const client = new Redis(url, { autoResendUnfulfilledCommands: false });
    client.on('error', () => undefined);
    return { redis: client, close: () => client.disconnect() };
  },
  'node-redis': async (url) => {
    const client = createClient({ url });
    client.on('error', () => undefined);
    await client.connect();
    return { redis: client as unknown as NonNullable<ConfigureOptions['redis']>, close: () => client.destroy() };
  },
};

const SUBSCRIBE = /^SUBSCRIBE$/;

/** The runtime on `connect`'s client through a fresh proxy, waiting for a key held by "someone else". */
async function waitingThroughProxy(t: ExecutionContext, connect: Connect, businessFlag: string) {
  const proxy = await startFaultProxy({ host: fixture.server.host, port: fixture.server.port });
  const client = await connect(proxy.url);
  t.teardown(async () => {
    await close();
    client.close();
    await proxy.close();
  });
  const events: LockEvent[] = [];
  configure({ redis: client.redis, logger: (event) => events.push(event) });
  const lock = defineLock({ businessFlag, retries: 1, waitTime: WAIT_TIME });
  const key = `LOCK_${businessFlag}_k`;
  await fixture.redis.set(key, 'someone-else', 'PX', 60_000);
  return {
    proxy,
    events,
    key,
    /** Starts the wait; resolves once the caller holds the key, checking that it came soon. */
    wait() {
      const started = Date.now();
      const got = lock.acquire('k');
      return async () => {
        const lease = await got;
        const tookMs = Date.now() - started;
        t.true(tookMs < SOON_MS, `got the key after ${tookMs} ms (its next scheduled attempt: ${WAIT_TIME} ms)`);
        await lease.release();
      };
    },
    /** The holder elsewhere lets go: the key deleted and its release announced. */
    async release() {
      await fixture.redis.del(key);
      await fixture.redis.publish(`${DEFAULT_RELEASE_CHANNEL}${key}`, '');
    },
  };
}

for (const [family, connect] of Object.entries(FAMILIES)) {
  test.serial(
    `${family}: a release while the subscriber is cut off: the waiter looks again once it is back`,
    async (t) => {
      const { proxy, events, wait, release } = await waitingThroughProxy(t, connect, `missed-${family}`);
      const gotSoon = wait();
      // Subscribed, in line, and asleep until its next scheduled attempt.
      await until(async () => events.some((event) => event.type === 'waiting'), 10_000);
      // The holder lets go while the subscriber's connection is down: its notice is lost.
      for (const connection of proxy.carrying(SUBSCRIBE)) connection.reset();
      await release();
      await gotSoon();
    },
  );

  test.serial(
    `${family}: a SUBSCRIBE lost with its connection is sent again once the subscriber is back`,
    async (t) => {
      const { proxy, key, wait, release } = await waitingThroughProxy(t, connect, `deaf-${family}`);
      // The waiter's SUBSCRIBE is swallowed and its connection reset: the subscription fails.
      proxy.swallowNext({ pattern: SUBSCRIBE, withinMs: 10_000, resetAfterMs: 300 });
      const gotSoon = wait();
      await until(async () => proxy.swallowed === 1, 10_000);
      // Back, and subscribed again: a release now is heard.
      await until(
        async () => (await fixture.redis.pubsub('NUMSUB', `${DEFAULT_RELEASE_CHANNEL}${key}`))[1] === 1,
        10_000,
      );
      await release();
      await gotSoon();
    },
  );
}
