// A Redlock lease outlives a rolling restart of its servers: one restarts empty, and the next
// renewal grants it the key again (token-checked, only where the key is absent), so when a second
// server then stops, the lease still stands on a majority — not lost, and nobody else takes the key.
import test from 'ava';
import { configure, defineLock, LockAcquireError, RedisLockStore, RedlockStore, type LockEvent } from 'lockweave';
import { usePrimaries } from '../helpers/redis-primaries';
import { sleep, until } from '../helpers/time';

const events: LockEvent[] = [];
const fixture = usePrimaries(test, 3, (primaries) =>
  configure({ redlock: primaries.urls, logger: (event) => events.push(event) }),
);

const LOCK_TIME = 3_000;

// First, while every server is up: the verdict below must not wait on a reconnect.
test.serial(
  'a renewal never touches a key another caller holds, and re-grants do not revive a lease no server still held',
  async (t) => {
    const { clients } = fixture.primaries;
    const lock = defineLock({
      businessFlag: 'regrant-others',
      redlock: true,
      lockTime: LOCK_TIME,
      retries: 0,
      watchdog: false,
    });
    const lease = (await lock.acquire('k')) as { key: string; token: string; release(): Promise<void> };
    // The key expired everywhere (the lease ended), and a third party holds it on one server.
    await Promise.all(clients.map((client) => client.del(lease.key)));
    await clients[2]!.set(lease.key, 'someone-else', 'PX', 60_000);
    // The renewal the watchdog would make, made now, through a Redlock store over the same servers
    // (the lease's own is private to it).
    const store = new RedlockStore(
      clients.map((client, index) => ({ store: new RedisLockStore(client), address: `server ${index}` })),
    );
    const renewed = await store.renew(lease.key, lease.token, LOCK_TIME);
    t.false(renewed, 'no server held the token: the lease had ended, and is not taken again');
    t.is(await clients[2]!.get(lease.key), 'someone-else', "another's token is untouched");
    await until(
      async () => (await clients[0]!.exists(lease.key)) === 0 && (await clients[1]!.exists(lease.key)) === 0,
      5_000,
    );
    t.pass('the re-grants of an ended lease were undone');
    await lease.release();
    await clients[2]!.del(lease.key);
  },
);

test.serial(
  'a lease survives its servers restarting one at a time: the renewal re-grants the key on the server that came back empty',
  async (t) => {
    const { servers, clients } = fixture.primaries;
    const lock = defineLock({ businessFlag: 'rolling', redlock: true, lockTime: LOCK_TIME, retries: 0 });
    const lease = (await lock.acquire('k')) as { key: string; token: string; held: boolean; release(): Promise<void> };
    t.truthy(lease);
    await servers[0]!.kill();
    await servers[0]!.restart(); // empty: no persistence
    // The watchdog renews every lockTime / 3; the runtime's connection to server 0 comes back first.
    await t.notThrowsAsync(
      until(async () => (await clients[0]!.get(lease.key).catch(() => null)) === lease.token, 4 * LOCK_TIME),
      "a renewal after the restart set the key on server 0 again, to the holder's token",
    );
    await servers[1]!.kill();
    // Longer than a lease: were the key held on server 2 alone, it would have been reported lost by now.
    await sleep(2 * LOCK_TIME);
    t.deepEqual(
      events.filter((event) => event.type === 'lost' && event.key === lease.key),
      [],
      'the lease was never reported lost',
    );
    t.true(lease.held, 'the holder still holds it');
    t.is(await clients[2]!.get(lease.key), lease.token, "server 2 still holds the holder's token");
    await t.throwsAsync(lock.acquire('k'), { instanceOf: LockAcquireError }, 'another caller cannot take the key');
    await lease.release();
    t.is(await clients[0]!.get(lease.key), null, 'released where it was re-granted');
    await servers[1]!.restart();
  },
);
