// A holder whose connection stalls — a partition: no reset, nothing passes either way — cannot renew
// its lease. It must be told (the `lost` event, `lease.signal` aborting) by the time its key may be
// gone from Redis, where another process can take it. It used to be told only when a renewal failed
// after the lease's end: a renewal on a stalled connection fails at its command timeout, 2 s after it
// was sent, and the next one comes a third of a lease after that — 2.4 s late with a 4.5 s lease,
// 6 s with the default 30 s, and never when the body ended first and its release got no answer
// either (withLock resolved as if nothing had happened).
//
// The holder is the runtime, through the fault proxy (test/helpers/fault-proxy.ts); "another
// process" is a plain client straight on Redis, which takes the key only once Redis has let it go.
// A 4.5 s lease: its first renewal, stalled, fails after 3.5 s, and the one after would come after
// the lease's end — so a lease found lost only when a renewal fails is found lost seconds late.
import test, { type ExecutionContext } from 'ava';
import { close, configure, withLock, type AnyLease, type LockEvent } from 'lockweave';
import { startFaultProxy } from '../helpers/fault-proxy';
import { uniqueId, useRedis } from '../helpers/redis-fixture';
import { eventually, sleep, until } from '../helpers/time';

const LOCK_MS = 4_500;
/** How late the abort may come after Redis let the key go: a timer's lateness on a loaded machine, not a renewal's timeout. */
const SLACK_MS = 300;
/** Longer than any test here: a stalled connection never comes back while the test runs. */
const STALL_MS = 60_000;

// The runtime is configured again by each test, through its own proxy; the fixture's client looks at Redis directly.
const fixture = useRedis(test);

type Stamped = LockEvent & { at: number };

/** The runtime through a fresh proxy; `stall()` partitions it from Redis. */
async function holderThroughProxy(t: ExecutionContext) {
  const proxy = await startFaultProxy({ host: fixture.server.host, port: fixture.server.port });
  const events: Stamped[] = [];
  configure({ redis: proxy.url, logger: (event) => events.push({ ...event, at: Date.now() }) });
  t.teardown(async () => {
    proxy.resetAll(); // a stalled connection would hold up close()
    await close();
    await proxy.close();
  });
  const businessFlag = 'lost-on-time';
  const key = uniqueId('k');
  return {
    events,
    key,
    businessFlag,
    redisKey: `LOCK_${businessFlag}_${key}`,
    // A partition: the connections open stall, and so do the ones the runtime opens to replace
    // them (a connection given up on is made again: runtime/store/command-batch.ts).
    stall(ms = STALL_MS): void {
      proxy.partition(ms);
    },
    lost: () => events.filter((event) => event.type === 'lost'),
  };
}

/** Until Redis has let `redisKey` go; then when. */
async function goneFromRedis(redisKey: string): Promise<number> {
  await until(async () => (await fixture.redis.exists(redisKey)) === 0, {
    timeoutMs: 4 * LOCK_MS,
    everyMs: 5,
    what: 'the key gone from Redis',
  });
  return Date.now();
}

test.serial(
  'a holder stalled before its first renewal is told its lease is lost (lost, signal) by the time another process can take the key',
  async (t) => {
    const holder = await holderThroughProxy(t);
    let lease: AnyLease | undefined;
    let abortedAt: number | undefined;
    let bodyEndedAt = 0;
    const result = withLock({ businessFlag: holder.businessFlag, key: holder.key, lockTime: LOCK_MS }, async (held) => {
      lease = held;
      held.signal.addEventListener('abort', () => (abortedAt = Date.now()));
      // Just before the watchdog's first renewal (a third of the lease in). Later on a loaded
      // machine is no matter: a renewal that got through only moves the lease's end.
      await sleep(LOCK_MS / 3 - 400);
      holder.stall();
      // The body stops when told, as a long body should.
      await until(() => held.signal.aborted, { timeoutMs: 4 * LOCK_MS, what: 'lease.signal aborting' });
      bodyEndedAt = Date.now();
      return 'body done';
    });
    await until(() => lease !== undefined, { what: 'the lock taken' });
    const goneAt = await goneFromRedis(holder.redisKey);
    // Another process takes the key the moment Redis lets it go.
    t.is(await fixture.redis.set(holder.redisKey, 'another-holder', 'PX', 60_000, 'NX'), 'OK');
    await eventually(() => abortedAt !== undefined, SLACK_MS);
    t.log(`abort ${abortedAt === undefined ? 'not yet' : `${abortedAt - goneAt} ms`} from the key's end in Redis`);
    t.true(abortedAt !== undefined && abortedAt <= goneAt + SLACK_MS, 'the abort came before the other holder entered');
    t.false(lease!.held);
    t.regex(String((lease!.signal.reason as Error).message), /lease ended while Redis could not be reached/);

    // The body ended after its lease was lost: the call still returns its result (the release is
    // not answered; the body is never cut short), and the loss was reported once, before it.
    t.is(await result, 'body done');
    const lost = holder.lost();
    t.is(lost.length, 1, 'lost reported once');
    t.true(lost[0]!.at <= goneAt + SLACK_MS && lost[0]!.at <= bodyEndedAt);
    t.is(await fixture.redis.get(holder.redisKey), 'another-holder', "the other holder's lock stays");
  },
);

test.serial(
  'a body that ignores the signal and ends after its stalled lease ended was told before it ended, and withLock resolves with its result',
  async (t) => {
    const holder = await holderThroughProxy(t);
    let lease: AnyLease | undefined;
    let bodyEndedAt = 0;
    const result = withLock({ businessFlag: holder.businessFlag, key: holder.key, lockTime: LOCK_MS }, async (held) => {
      lease = held;
      await sleep(LOCK_MS / 3 - 400);
      holder.stall();
      // Past the lease's end, signal or not: its renewal and its release both get no answer.
      await sleep(LOCK_MS);
      bodyEndedAt = Date.now();
      return 'body done';
    });
    await until(() => lease !== undefined, { what: 'the lock taken' });
    const goneAt = await goneFromRedis(holder.redisKey);
    t.is(await result, 'body done');
    const lost = holder.lost();
    t.is(lost.length, 1, 'lost reported once');
    t.true(lost[0]!.at <= goneAt + SLACK_MS, `lost came ${lost[0]!.at - goneAt} ms after the key's end in Redis`);
    t.true(lost[0]!.at < bodyEndedAt, 'lost came while the body ran');
    t.true(lease!.signal.aborted);
  },
);

test.serial(
  'a renewal answered late but within the lease keeps it: no lost, and the lease is still held at the end of a long body',
  async (t) => {
    const holder = await holderThroughProxy(t);
    let heldAtEnd = false;
    let aborted = true;
    const result = withLock({ businessFlag: holder.businessFlag, key: holder.key, lockTime: LOCK_MS }, async (held) => {
      // The first renewal goes out into a 1 s stall, well within its command timeout and the lease.
      await sleep(LOCK_MS / 3 - 400);
      holder.stall(1_000);
      await sleep(2 * LOCK_MS);
      heldAtEnd = held.held;
      aborted = held.signal.aborted;
      return 'body done';
    });
    t.is(await result, 'body done');
    t.true(heldAtEnd);
    t.false(aborted);
    t.deepEqual(holder.lost(), []);
    t.true(holder.events.filter((event) => event.type === 'renewed').length >= 2);
    t.is(await fixture.redis.exists(holder.redisKey), 0, 'released');
  },
);

test.serial(
  'with the watchdog off, a body that outlasts its lease and whose release gets no answer is reported lost before withLock resolves',
  async (t) => {
    const holder = await holderThroughProxy(t);
    const lockTime = 1_500;
    let bodyEndedAt = 0;
    let resolvedAt = 0;
    const result = withLock(
      { businessFlag: holder.businessFlag, key: holder.key, lockTime, watchdog: false },
      async () => {
        await sleep(lockTime + 300);
        holder.stall(STALL_MS); // the release goes into the stall
        bodyEndedAt = Date.now();
        return 'body done';
      },
    ).then((value) => {
      resolvedAt = Date.now();
      return value;
    });
    t.is(await result, 'body done');
    const lost = holder.lost();
    t.is(lost.length, 1, 'lost reported once');
    // No watchdog, no lapse timer: the lease ends at its TTL by the caller's choice, and the
    // release is where an overrun shows.
    t.true(lost[0]!.at >= bodyEndedAt && lost[0]!.at <= resolvedAt);
    t.regex(lost[0]!.type === 'lost' ? lost[0]!.error.message : '', /did not answer/);
  },
);
