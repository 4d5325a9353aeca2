// A key's release-notice subscription outlives its last waiter by LINGER_MS (store/redis-notices.ts):
// a process whose one caller takes a contended key again and again subscribes once, not once a
// section, and takes its place in line as its first attempt (lock/acquire.ts). Serial, on a server
// of this file's own: the SUBSCRIBE count is the server's.
import test from 'ava';
import { Redis } from 'ioredis';
import { defineLock, RedisLockStore, type Lease } from 'lockweave';
import { LINGER_MS } from '../../runtime/store/redis-notices';
import { waitingLineOf } from '../../runtime/store/waiting-line';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { until } from '../helpers/time';

const fixture = useRedis(test);

const subscribes = async (): Promise<number> => {
  const stats = (await fixture.redis.info('commandstats')) as string;
  return Number(/cmdstat_subscribe:calls=(\d+)/.exec(stats)?.[1] ?? 0);
};

const subscribers = async (channel: string): Promise<number> =>
  Number(((await fixture.redis.pubsub('NUMSUB', channel)) as [string, number])[1]);

test.serial(
  'a subscription stays LINGER_MS after its last waiter, and a waiter meanwhile sends no SUBSCRIBE',
  async (t) => {
    const store = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
    const key = `LOCK_${uniqueId('linger')}`;
    const channel = `lockweave:released:${key}`;
    const heard: Array<string | undefined> = [];
    const notice = (_key: string, passedTo: string | undefined) => void heard.push(passedTo);
    try {
      const before = await subscribes();
      await store.listen(key, notice);
      t.is(await subscribes(), before + 2, "two SUBSCRIBEs: the key's channel and this process's");
      store.unlisten(key);
      t.is(await subscribers(channel), 1, 'still subscribed right after its last waiter left');
      // A waiter that comes meanwhile rides on it, and hears the key's notices.
      await store.listen(key, notice);
      t.is(await subscribes(), before + 2, 'no more');
      await fixture.redis.publish(channel, 'someone');
      await until(() => heard.includes('someone'), { timeoutMs: 10_000, what: 'the notice' });
      // Once nobody waits, it ends within a loose bound of LINGER_MS.
      store.unlisten(key);
      await until(async () => (await subscribers(channel)) === 0, {
        timeoutMs: LINGER_MS + 10_000,
        what: 'the UNSUBSCRIBE',
      });
      t.pass();
    } finally {
      await store.close();
    }
  },
);

test.serial('one caller taking a contended key again and again subscribes its channels once', async (t) => {
  const key = uniqueId('again');
  const redisKey = `LOCK_linger_${key}`;
  const lock = defineLock({ businessFlag: 'linger', waitTime: 1_000, retries: 30 });
  const other = new RedisLockStore(new Redis(fixture.server.url), { ownsClient: true });
  try {
    const before = await subscribes();
    for (let round = 0; round < 5; round++) {
      // Another holder has the key: this caller takes its place in line, then the holder passes it the key.
      t.true(await other.tryAcquire(redisKey, `holder-${round}`, 10_000));
      const taken = lock.acquire(key);
      await until(async () => (await fixture.redis.zcard(waitingLineOf(redisKey).line)) === 1, {
        timeoutMs: 10_000,
        what: 'the caller in line',
      });
      t.is(await other.release(redisKey, `holder-${round}`), 'passed');
      const lease = await taken;
      await lease.release();
    }
    t.is(await subscribes(), before + 2, 'one pair of SUBSCRIBEs for five waits');
    // Its process still hears the key, so the next call's first attempt is its place in line
    // (acquire.ts): that attempt must take a free key at once, and leave nobody in line.
    const free = (await lock.acquire(key)) as Lease;
    t.is(await fixture.redis.get(redisKey), free.token);
    t.is(await fixture.redis.zcard(waitingLineOf(redisKey).line), 0, 'nobody left in line');
    await free.release();
    t.is(await fixture.redis.exists(redisKey), 0);
  } finally {
    await other.close();
  }
});
