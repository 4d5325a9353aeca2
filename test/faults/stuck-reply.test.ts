// Fault kind: a reply garbled on a connection that stays open, so that the client reads it for ever
// (a middlebox put `$999999999\r\n` in front of it: a bulk reply whose end never comes). No reply
// reaches any command on that connection again. node-redis kept it, and every lock command was
// refused as "a reply is overdue" for good, its PINGs never answered; now a connection with no reply
// for three bounds is ended (QUIT) and made again (node-redis-pairing.ts, stuck). Every client:
// free keys lock again within a bound, and no caller holds a key it was not given.
import test from 'ava';
import { close, withLock } from 'lockweave';
import { lockingThroughProxy, proxiedClients } from '../helpers/proxied-clients';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { eventually } from '../helpers/time';

/** Three PINGs' bounds (2 s each), the reconnect, and a loaded machine's slack. */
const RECOVERY_MS = 15_000;

let server: RedisServer;

test.before(async () => {
  server = await startRedisServer();
});
test.after.always(async () => {
  await close();
  await server?.stop();
});

// GLIDE and ioredis's re-sending client read a garbled reply as the others do: their own suites'.
const clients = Object.entries(proxiedClients(() => server.host)).filter(
  ([label]) => !label.includes('GLIDE') && !label.includes('re-sends'),
);

for (const [label, open] of clients) {
  test.serial(
    `${label}: a reply read for ever on an open connection stops locking only until it is made again`,
    async (t) => {
      const { proxy } = await lockingThroughProxy(t, server, open);
      const tag = `${label.replace(/\W+/g, '-')}-${process.pid}`;
      const request = (key: string) => ({ businessFlag: 'stuck', key: `${key}-${tag}`, retries: 0, waitTime: 500 });
      t.is(await withLock(request('warm-up'), async () => 'ok'), 'ok');

      const commandConnections = proxy.carrying(/^SET$/);
      t.is(commandConnections.length, 1, 'one connection carries the lock commands');
      commandConnections[0]!.garbleNextReply('$999999999\r\n');
      const stuck = await withLock(request('stuck'), async () => 'ran').catch((error: Error) => error.name);
      t.is(stuck, 'LockAcquireError', 'the call whose reply is read for ever fails');

      let round = 0;
      const recovered = await eventually(
        async () => (await withLock(request(`after-${round++}`), async () => 'ok').catch(() => 'failed')) === 'ok',
        { timeoutMs: RECOVERY_MS, everyMs: 250 },
      );
      t.true(recovered, `a free key locked again within ${RECOVERY_MS} ms`);
    },
  );
}
