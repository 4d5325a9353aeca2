// Redlock's quorum with some of its N primaries killed, paused, or emptied: written once, run on 3
// (redlock-quorum-3.test.ts) and 5 (redlock-quorum-5.test.ts). Bounds are generous (a loaded
// machine); the times are logged, not asserted tightly.
import type { TestFn } from 'ava';
import {
  configure,
  defineLock,
  LockAcquireError,
  LockLostError,
  RedisConnectionError,
  type LockEvent,
} from 'lockweave';
import { uniqueId } from '../helpers/redis-fixture';
import { until } from '../helpers/time';
import { usePrimaries } from '../helpers/redis-primaries';

export function redlockQuorum(test: TestFn, count: number): void {
  const events: LockEvent[] = [];
  const fixture = usePrimaries(test, count, ({ urls }) =>
    configure({
      redis: 'redis://127.0.0.1:1',
      redlock: urls,
      defaults: { redlock: true },
      logger: (event) => events.push(event),
    }),
  );

  const minority = Math.floor((count - 1) / 2);
  const majority = count - minority;
  const spec = (label: string, options: object = {}) => defineLock({ businessFlag: uniqueId(label), ...options });
  const holders = async (key: string, token: string) =>
    (await Promise.all(fixture.primaries.clients.map((client) => client.get(key).catch(() => null)))).filter(
      (held) => held === token,
    ).length;

  test.serial(
    `with a minority (${minority} of ${count}) killed, locks are still taken and released, on the rest`,
    async (t) => {
      const { servers } = fixture.primaries;
      const L = spec('minority-killed', { retries: 2, waitTime: 1_000 });
      await Promise.all(servers.slice(0, minority).map((server) => server.kill()));
      try {
        for (let i = 0; i < 5; i++) {
          const startedAt = Date.now();
          const lease = await L.acquire(`K${i}`);
          t.log(`acquire ${i}: ${Date.now() - startedAt} ms`);
          t.true(lease!.held);
          t.is(await holders(lease!.key, (lease as { token: string }).token), majority);
          await lease!.release();
          t.is(await holders(lease!.key, (lease as { token: string }).token), 0);
        }
      } finally {
        await Promise.all(servers.slice(0, minority).map((server) => server.restart()));
      }
    },
  );

  test.serial(
    `with a minority (${minority} of ${count}) paused, locks are taken within the bounds, then it continues`,
    async (t) => {
      const { primaries } = fixture;
      const L = spec('minority-paused', { retries: 2, waitTime: 1_000 });
      // Connections to every node first: a pause then hangs commands rather than refusing them.
      await (await L.acquire('warm'))!.release();
      for (let i = 0; i < minority; i++) primaries.pause(i);
      try {
        for (let i = 0; i < 5; i++) {
          const startedAt = Date.now();
          const lease = await L.acquire(`K${i}`);
          const tookMs = Date.now() - startedAt;
          t.log(`acquire ${i}: ${tookMs} ms`);
          t.true(tookMs < 5_000, `acquire took ${tookMs} ms`);
          await lease!.release();
        }
        // A second caller still finds a held key held.
        const first = await L.acquire('held');
        const again = defineLock({ businessFlag: L.spec.businessFlag, retries: 0 });
        await t.throwsAsync(again.acquire('held'), { instanceOf: LockAcquireError });
        await first!.release();
      } finally {
        for (let i = 0; i < minority; i++) primaries.resume(i);
      }
    },
  );

  test.serial(
    `with a majority (${majority} of ${count}) killed, a caller gets LockAcquireError within its wait bound`,
    async (t) => {
      const { servers } = fixture.primaries;
      const L = spec('majority-killed', { retries: 2, waitTime: 300 });
      await Promise.all(servers.slice(0, majority).map((server) => server.kill()));
      try {
        const startedAt = Date.now();
        const error = await t.throwsAsync(L.acquire('K'), { instanceOf: LockAcquireError });
        const waitedMs = Date.now() - startedAt;
        t.log(`failed after ${waitedMs} ms: ${error!.message}`);
        t.true(waitedMs < 600 + 5_000, `waited ${waitedMs} ms`);
        t.true(error!.cause instanceof RedisConnectionError);
        t.regex((error!.cause as Error).message, /Redlock: no majority/);
      } finally {
        await Promise.all(servers.slice(0, majority).map((server) => server.restart()));
      }
      // And back: the restarted servers take locks again.
      await until(async () => {
        const lease = await L.acquire('after').catch(() => undefined);
        await lease?.release();
        return lease !== undefined;
      }, 20_000);
      t.pass();
    },
  );

  test.serial(
    `with a majority (${majority} of ${count}) paused, a caller gets LockAcquireError within its wait bound`,
    async (t) => {
      const { primaries } = fixture;
      const L = spec('majority-paused', { retries: 1, waitTime: 500 });
      await (await L.acquire('warm'))!.release();
      for (let i = 0; i < majority; i++) primaries.pause(i);
      try {
        const startedAt = Date.now();
        const error = await t.throwsAsync(L.acquire('K'), { instanceOf: LockAcquireError });
        const waitedMs = Date.now() - startedAt;
        t.log(`failed after ${waitedMs} ms: ${error!.message}`);
        // Each attempt waits at most the node bound (1 s) for the silent nodes.
        t.true(waitedMs < 500 + 2 * 1_000 + 5_000, `waited ${waitedMs} ms`);
      } finally {
        for (let i = 0; i < majority; i++) primaries.resume(i);
      }
    },
  );

  test.serial(
    "a grant left on the first server alone (the waiters' gate) does not keep waiters from a free majority",
    async (t) => {
      const { clients } = fixture.primaries;
      const L = spec('gate', { retries: 40, waitTime: 250 });
      const key = L.keyFor('K');
      // Another process holds the key on every server but the first, where a caller that died
      // mid-attempt left its grant: a majority of the others is free once the holder lets go.
      await clients[0]!.set(key, 'orphan', 'PX', 60_000);
      await Promise.all(clients.slice(1).map((client) => client.set(key, 'holder', 'PX', 60_000)));
      const waiting = L.acquire('K');
      await new Promise((resolve) => setTimeout(resolve, 300)); // the waiter listens and sleeps
      // The holder releases: its key goes, and each server announces it (a notice wakes the waiter,
      // whose attempt goes through the gate, where the orphan refuses it).
      const releasedAt = Date.now();
      for (const client of clients.slice(1)) {
        await client.del(key);
        await client.publish(`lockweave:released:${key}`, '');
      }
      const lease = await waiting;
      const waitedMs = Date.now() - releasedAt;
      t.log(`got the key ${waitedMs} ms after the release`);
      // At its next scheduled attempt (250 ms) it asks every server: not the orphan's 60 s.
      t.true(waitedMs < 10_000, `waited ${waitedMs} ms`);
      t.is(await holders(key, (lease as { token: string }).token), count - 1);
      await lease!.release();
      await clients[0]!.del(key);
    },
  );

  test.serial('a lease is lost when a majority loses the key, and kept when only a minority does', async (t) => {
    const { clients } = fixture.primaries;
    const L = spec('lost', { lockTime: 2_400 });
    const kept = await L.acquire('kept');
    const lost = await L.acquire('lost');
    // An acquire returns once a majority has answered; wait for the rest. A server may also have
    // missed a grant for good (Redlock needs only a majority): then the deletions below count
    // from the servers that hold the key.
    const tokenOf = (lease: unknown) => (lease as { token: string }).token;
    const holding = async (key: string, token: string) =>
      (await Promise.all(clients.map((client) => client.get(key).catch(() => null)))).flatMap((held, index) =>
        held === token ? [index] : [],
      );
    for (const lease of [kept, lost]) {
      await until(async () => (await holding(lease!.key, tokenOf(lease))).length === count, 5_000).catch(() =>
        t.log(`${lease!.key}: a server missed the grant; held on ${count - 1} or fewer`),
      );
    }
    const quorum = Math.floor(count / 2) + 1;
    const keptOn = await holding(kept!.key, tokenOf(kept));
    const lostOn = await holding(lost!.key, tokenOf(lost));
    t.true(keptOn.length >= quorum && lostOn.length >= quorum);
    // kept: a majority still holds it; lost: one server short of a majority does.
    await Promise.all(keptOn.slice(0, keptOn.length - quorum).map((index) => clients[index].del(kept!.key)));
    await Promise.all(lostOn.slice(0, lostOn.length - quorum + 1).map((index) => clients[index].del(lost!.key)));
    await until(async () => events.some((event) => event.type === 'lost' && event.key === lost!.key), 10_000).catch(
      (error) => {
        t.log(events.filter((event) => event.key === lost!.key));
        throw error;
      },
    );
    t.true(lost!.signal.aborted);
    t.true(lost!.signal.reason instanceof LockLostError);
    t.false(lost!.held);
    // The kept lease was renewed since (every lockTime / 3) and still holds its majority.
    await until(
      async () => events.filter((event) => event.type === 'renewed' && event.key === kept!.key).length >= 2,
      10_000,
    );
    t.true(kept!.held);
    t.false(kept!.signal.aborted);
    t.true((await holding(kept!.key, tokenOf(kept))).length >= quorum);
    await kept!.release();
    await lost!.release();
  });

  test.serial(
    'a lease is lost when a majority of its servers are killed (the watchdog cannot renew it in time)',
    async (t) => {
      const { servers } = fixture.primaries;
      const L = spec('lost-killed', { lockTime: 900 });
      const lease = await L.acquire('K');
      await Promise.all(servers.slice(0, majority).map((server) => server.kill()));
      try {
        await until(async () => events.some((event) => event.type === 'lost' && event.key === lease!.key), 10_000);
        t.true(lease!.signal.aborted);
        t.false(lease!.held);
      } finally {
        await lease!.release();
        await Promise.all(servers.slice(0, majority).map((server) => server.restart()));
      }
    },
  );
}
