// A release announced while the waiter's subscriber is cut off reaches nobody in its process. The
// waiter must not then sleep on to its next scheduled attempt (waitTime: 5 s by default, 20 s
// here) while the key is free: once its subscriber is subscribed again, it looks again. And a
// key whose SUBSCRIBE was lost with the connection is subscribed again when the subscriber is back,
// so the next release is heard (ioredis sends that SUBSCRIBE again by itself; node-redis did not,
// and its waiter heard nothing more). Each case on the client families that say when their subscriber
// is back: the runtime's own ioredis connection (a URL), a user's ioredis client, a user's
// node-redis client. The proxy in front of Redis (test/helpers/fault-proxy.ts) does the cutting.
//
// A SUBSCRIBE can also fail with no lost connection to say so: its reply lost on a connection that
// stays up, or its command timeout run out while the subscriber's first connection was held up (a
// loaded machine). Its key is subscribed again on a timer; the runtime's own connections, which
// have a command timeout, show it.
import test, { type ExecutionContext } from 'ava';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import {
  close,
  configure,
  DEFAULT_RELEASE_CHANNEL,
  defineLock,
  LockAcquireError,
  type ConfigureOptions,
  type LockEvent,
} from 'lockweave';
import { startFaultProxy } from '../helpers/fault-proxy';
import { useRedis } from '../helpers/redis-fixture';
import { sleep, until } from '../helpers/time';

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

// In both, the holder lets go once the waiter is in line (it stops waiting for its SUBSCRIBE after
// 2 s) and before the key is subscribed again: only a look once it is gets the waiter the key
// before its next scheduled attempt.
test.serial(
  'url: a SUBSCRIBE left unanswered on a connection that stays up is sent again, and the waiter looks',
  async (t) => {
    const { proxy, events, wait, release } = await waitingThroughProxy(t, FAMILIES.url!, 'unanswered');
    // Swallowed, and the connection left open and silent: the SUBSCRIBE times out (2 s). ioredis then
    // pairs each later SUBSCRIBE reply with the command before it, so sending it again on that
    // connection is not enough: the subscriber makes its connection again.
    proxy.swallowNext({ pattern: SUBSCRIBE, withinMs: 10_000 });
    const gotSoon = wait();
    await until(async () => proxy.swallowed === 1, 10_000);
    await until(async () => events.some((event) => event.type === 'waiting'), 10_000);
    await release();
    await gotSoon();
  },
);

test.serial(
  "url: a SUBSCRIBE that timed out while the subscriber's first connection was held up is sent again, and the waiter looks",
  async (t) => {
    const { proxy, events, wait, release } = await waitingThroughProxy(t, FAMILIES.url!, 'slow-subscriber');
    // The runtime's command connection is ready first (a lock on another key); then the subscriber's
    // connection is held up past the SUBSCRIBE's command timeout (2 s), and no failure of its own says so.
    const other = await defineLock({ businessFlag: 'slow-subscriber-other' }).acquire('k');
    await other.release();
    proxy.stallNextConnection(3_000);
    const gotSoon = wait();
    await until(async () => events.some((event) => event.type === 'waiting'), 10_000);
    await release();
    await gotSoon();
  },
);

// ioredis writes a SUBSCRIBE at once while its connection is still in its handshake (SUBSCRIBE may
// run while Redis loads); the reply puts the connection in subscriber mode, and the ready check's
// INFO that follows is refused — the connection is dropped and made again, and a subscription
// answered on the dropped one was gone without a word. Two keys, the second listened to while the
// subscriber's handshake is held up: both releases are heard, on the subscriber's first connection.
test.serial('url: a key listened to while the subscriber connects still hears its release', async (t) => {
  const { proxy, events, key, release } = await waitingThroughProxy(t, FAMILIES.url!, 'handshake');
  const other = await defineLock({ businessFlag: 'handshake-other' }).acquire('k');
  await other.release();
  // Held elsewhere, as `key` is.
  const lock = defineLock({ businessFlag: 'handshake', retries: 1, waitTime: WAIT_TIME });
  const secondKey = `${key}2`;
  await fixture.redis.set(secondKey, 'someone-else', 'PX', 60_000);
  proxy.stallNextConnection(1_000);
  const started = Date.now();
  const first = lock.acquire('k');
  // The subscriber's connection is open now and held: the second key's SUBSCRIBE goes out in its handshake.
  await until(async () => proxy.connections().length >= 2, 5_000);
  const subscriberConnection = Math.max(...proxy.connections().map((connection) => connection.id));
  await sleep(200);
  const second = lock.acquire('k2');
  await until(async () => events.filter((event) => event.type === 'waiting').length >= 2, 10_000);
  await until(
    async () => Number((await fixture.redis.pubsub('NUMSUB', `${DEFAULT_RELEASE_CHANNEL}${secondKey}`))[1]) === 1,
    10_000,
  );
  await release();
  await fixture.redis.del(secondKey);
  await fixture.redis.publish(`${DEFAULT_RELEASE_CHANNEL}${secondKey}`, '');
  for (const lease of await Promise.all([first, second])) await lease.release();
  const tookMs = Date.now() - started;
  t.true(tookMs < SOON_MS, `got both keys after ${tookMs} ms (their next scheduled attempt: ${WAIT_TIME} ms)`);
  // Nor was the connection dropped and made again for it: the second SUBSCRIBE waited for the handshake.
  t.true(proxy.connections().some((connection) => connection.id === subscriberConnection));
});

// A look after a possible miss is not a notice: with no release, still retries + 1 attempts.
test.serial('url: a look once the subscriber is back is not counted among the attempts', async (t) => {
  const { proxy, events, key } = await waitingThroughProxy(t, FAMILIES.url!, 'look-uncounted');
  const lock = defineLock({ businessFlag: 'look-uncounted', retries: 2, waitTime: 1_500 });
  const failed = lock.acquire('k').then(
    () => undefined,
    (error: LockAcquireError) => error,
  );
  await until(async () => events.some((event) => event.type === 'waiting'), 10_000);
  for (const connection of proxy.carrying(SUBSCRIBE)) connection.reset();
  // Back, and subscribed again: its waiter looked, and found the key still held.
  await until(async () => (await fixture.redis.pubsub('NUMSUB', `${DEFAULT_RELEASE_CHANNEL}${key}`))[1] === 1, 10_000);
  const error = await failed;
  t.true(error instanceof LockAcquireError);
  t.is(error?.attempts, 3);
});

// A SUBSCRIBE lost with its connection fails only when its command timeout runs out (2 s; ioredis
// drops an unanswered command when it reconnects). If meanwhile its waiter gave up and another
// came for the same key, subscribing it again, the first SUBSCRIBE's failure must undo only itself:
// the key stays subscribed, through the connection that the failure makes again, and the second
// waiter hears its release.
test.serial(
  'url: a SUBSCRIBE that fails after its key was listened to again leaves the later subscription in place',
  async (t) => {
    const { proxy, events, key, wait, release } = await waitingThroughProxy(t, FAMILIES.url!, 'relisten');
    const channel = `${DEFAULT_RELEASE_CHANNEL}${key}`;
    // The first waiter's SUBSCRIBE is swallowed and its connection reset; it gives up at its one
    // scheduled attempt (500 ms), before that SUBSCRIBE times out.
    proxy.swallowNext({ pattern: SUBSCRIBE, withinMs: 10_000, resetAfterMs: 200 });
    const first = defineLock({ businessFlag: 'relisten', retries: 1, waitTime: 500 }).acquire('k');
    await t.throwsAsync(first, { instanceOf: LockAcquireError });
    t.is(proxy.swallowed, 1);
    // The second waiter subscribes the key again, on the subscriber's new connection.
    const waitedBefore = events.filter((event) => event.type === 'waiting').length;
    const gotSoon = wait();
    await until(async () => events.filter((event) => event.type === 'waiting').length > waitedBefore, 10_000);
    await until(async () => (await fixture.redis.pubsub('NUMSUB', channel))[1] === 1, 10_000);
    // The first SUBSCRIBE's timeout (2 s after it was sent) has passed, and what it set off with it.
    await sleep(3_000);
    await until(async () => (await fixture.redis.pubsub('NUMSUB', channel))[1] === 1, 5_000);
    await release();
    await gotSoon();
  },
);
