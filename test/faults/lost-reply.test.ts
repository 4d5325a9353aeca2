// Fault kind: one reply lost on a connection that stays open (a proxy or middlebox in front of Redis
// drops it; the fault proxy's dropNextReply). Redis answers in order and the clients pair each reply
// with the oldest command waiting for one, so after it every later reply would answer the command
// sent before it: a SET NX on a key another process holds got another SET's "OK", and the body ran
// beside the holder — for good, on that connection. The store must never read a reply of such a
// connection as an answer to a lock command (a PING with a nonce after each write: pairing-ping.ts),
// and such a connection is made again: the runtime's own ioredis connection and a user's ioredis
// client by ioredis (command-batch.ts), a user's GLIDE and node-redis clients after the store's QUIT
// (glide-pipeline.ts, node-redis-client.ts). In each case the held key is never entered, and free
// keys lock again within a bound.
import test from 'ava';
import { Redis } from 'ioredis';
import { close, withLock } from 'lockweave';
import { lockingThroughProxy, proxiedClients } from '../helpers/proxied-clients';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { eventually, sleep } from '../helpers/time';

const HOLDERS_TOKEN = 'other-holders-token';
const RECOVERY_MS = 10_000;

let server: RedisServer;
let direct: Redis;

test.before(async () => {
  server = await startRedisServer();
  direct = new Redis(server.url);
});

test.after.always(async () => {
  await close();
  direct?.disconnect();
  await server?.stop();
});

const clients = proxiedClients(() => server.host);

// How a lost reply is met: `stalled`, the command whose reply is lost is queued by a process that
// then stalls past the bound (a held key was entered so, once, in a loaded CI run, when the store's
// bound started only after the command was handed over: the caller gave up first, and the next
// lock commands read their neighbours' replies). `racing`: the held and free keys are asked for
// while the lost command still waits, before any bound passed (a CI run entered a held key so: the
// caller gave up on the lost reply a millisecond before the store's bound, its give-back's reply
// answered the lost command, and the next SET read the one after it).
const cases = Object.entries(clients).flatMap(([label, open]) => [
  { title: label, open, stalled: false, racing: false },
  { title: `${label}, keys asked for while the lost reply is awaited`, open, stalled: false, racing: true },
  ...(label.includes('node-redis')
    ? [
        {
          title: `${label}, the process stalled past the bound before the command was written`,
          open,
          stalled: true,
          racing: false,
        },
      ]
    : []),
]);

for (const { title: label, open, stalled, racing } of cases) {
  test.serial(`${label}: after a lost reply a held key is never entered, and free keys lock again`, async (t) => {
    const { proxy, client } = await lockingThroughProxy(t, server, open);
    const tag = `${label.replace(/\W+/g, '-')}-${process.pid}`;
    const businessFlag = 'lost-reply';
    const request = (key: string) => ({ businessFlag, key: `${key}-${tag}`, lockTime: 10_000, retries: 0 });
    const outcome = (call: Promise<unknown>) =>
      call.then(
        (value) => `resolved ${String(value)}`,
        (error: Error) => `${error.name}: ${error.message} ${String((error.cause as Error | undefined)?.message)}`,
      );

    t.is(await outcome(withLock(request('warm-up'), async () => 'ok')), 'resolved ok');
    const heldKey = `LOCK_${businessFlag}_held-${tag}`;
    await direct.set(heldKey, HOLDERS_TOKEN, 'PX', 30_000);

    // The next reply on the connection that carries the store's commands is lost.
    const commandConnections = proxy.carrying(/^SET$/);
    t.is(commandConnections.length, 1, 'one connection carries the lock commands');
    commandConnections[0]!.dropNextReply();
    if (stalled) client.stallNextSend!();
    const losing = outcome(withLock(request('lost'), async () => 'ok'));
    if (!racing) {
      const lost = await losing;
      t.log(`the call whose reply was lost: ${lost}`);
      t.regex(lost, /^LockAcquireError/);
      await sleep(300);
    } else await sleep(200); // the lost command's reply is dropped; its bound (2 s) runs

    // A key another process holds and a free one, in one tick.
    const heldAndFree = async (freeKey: string) => {
      let heldBodyRan = false;
      const [held, free] = await Promise.all([
        outcome(
          withLock(request('held'), async () => {
            heldBodyRan = true;
            return 'held';
          }),
        ),
        outcome(withLock(request(freeKey), async () => 'free')),
      ]);
      return { held, free, heldBodyRan };
    };
    const { held, free, heldBodyRan } = await heldAndFree('free');
    t.log(`held key: ${held}; free key: ${free}`);
    t.false(heldBodyRan, 'the body on the held key did not run');
    t.regex(held, /^LockAcquireError/);
    t.is(await direct.get(heldKey), HOLDERS_TOKEN, "the holder's token is untouched");
    if (racing) {
      const lost = await losing;
      t.log(`the call whose reply was lost: ${lost}`);
      t.regex(lost, /^LockAcquireError/);
    }

    let round = 0;
    const recovered = await eventually(
      async () => (await outcome(withLock(request(`after-${round++}`), async () => 'ok'))) === 'resolved ok',
      { timeoutMs: RECOVERY_MS, everyMs: 100 },
    );
    t.true(recovered, `a free key locked again within ${RECOVERY_MS} ms`);
    t.is(await direct.get(heldKey), HOLDERS_TOKEN, "the holder's token is still untouched");
    // The connection pairs replies again: a held key is refused, a free one granted, side by side.
    const { held: heldAgain, free: freeAgain, heldBodyRan: heldBodyRanAgain } = await heldAndFree('free-again');
    t.false(heldBodyRanAgain);
    t.regex(heldAgain, /^LockAcquireError/);
    t.is(freeAgain, 'resolved free');
    // The user's own commands on the client read their own replies again.
    if (client.echo) t.is(String(await client.echo('mine')), 'mine');
  });
}
