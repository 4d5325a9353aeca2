// Fault kind: one reply lost on a Cluster node's connection that stays open (a proxy in front of each
// node, which every node announces as its address: cluster-announce-port; the proxy's dropNextReply),
// as test/faults/lost-reply.test.ts does on one server. Every later reply on that connection would
// answer the command sent before it. The held key is never entered, whether asked for after the
// lost command gave up or while it still waits, and free keys lock again once the client has made
// the node's connection again — through every Cluster client:
// - an ioredis Cluster: a batch's commands on each node are followed there by a PING with a nonce,
//   and no reply is used before it came back with its own (batch-pairing.ts, writePairedOnNodes);
// - a node-redis cluster (5 and 6): lock commands go on each primary's node client with a PING per
//   tick (node-redis-cluster.ts), and a QUIT makes node-redis connect again;
// - a GLIDE GlideClusterClient: each command runs as a script whose reply echoes its nonce
//   (glide-cluster-sender.ts), and a QUIT makes GLIDE connect again.
import test from 'ava';
import { defineLock, withLock } from 'lockweave';
import { keysPerShard } from '../helpers/redis-cluster';
import { eventually, sleep } from '../helpers/time';
import { configuredThrough, everyClusterClient, outcome } from './cluster-client';
import { useClusterBehindProxies } from './cluster-proxies';

const HOLDERS_TOKEN = 'other-holders-token';
const RECOVERY_MS = 10_000;
const businessFlag = 'clusterLostReply';

const topology = useClusterBehindProxies(test);

for (const [name, connect] of Object.entries(everyClusterClient(() => [topology().proxies[0]!.url])))
  for (const racing of [false, true]) {
    test.serial(
      `${name}: after a lost reply on a node, a held key there is never entered${racing ? ', asked for while the lost reply is awaited' : ''}; free keys lock again`,
      async (t) => {
        const { proxies, look } = topology();
        await configuredThrough(t, connect);

        const keyFor = (value: string) => defineLock({ businessFlag }).keyFor(value);
        // Keys of one primary: the lost one, the held one and the free ones.
        const [values] = keysPerShard(keyFor, `lost-${name}-${racing}`, 6);
        const [lostValue, heldValue, freeValue, freeAgainValue, ...afterValues] = values!;
        // The first shard's slots are the first node's: none fails over in this file.
        const proxy = proxies[0]!;
        const request = (value: string) => ({ businessFlag, key: value, lockTime: 10_000, retries: 0 });

        t.is(await outcome(withLock(request(afterValues[0]!), async () => 'ok')), 'resolved ok');
        await look.set(keyFor(heldValue!), HOLDERS_TOKEN, 'PX', 30_000);

        // GLIDE sends every lock command as a script (EVALSHA); the others SET and EVALSHA.
        const commandConnections = proxy.carrying(/^(SET|EVALSHA)$/);
        t.is(commandConnections.length, 1, "one connection to the key's primary carries the lock commands");
        commandConnections[0]!.dropNextReply();
        const losing = outcome(withLock(request(lostValue!), async () => 'ok'));
        if (!racing) {
          t.regex(await losing, /^LockAcquireError/);
          await sleep(300);
        } else await sleep(200);

        const heldAndFree = async (free: string) => {
          let heldBodyRan = false;
          const [held, freed] = await Promise.all([
            outcome(
              withLock(request(heldValue!), async () => {
                heldBodyRan = true;
                return 'held';
              }),
            ),
            outcome(withLock(request(free), async () => 'free')),
          ]);
          return { held, freed, heldBodyRan };
        };
        const first = await heldAndFree(freeValue!);
        t.log(`held key: ${first.held}; free key: ${first.freed}`);
        t.false(first.heldBodyRan, 'the body on the held key did not run');
        t.regex(first.held, /^LockAcquireError/);
        if (racing) t.regex(await losing, /^LockAcquireError/);

        let round = 1;
        const recovered = await eventually(
          async () =>
            (await outcome(withLock(request(`${afterValues[round++ % afterValues.length]}`), async () => 'ok'))) ===
            'resolved ok',
          { timeoutMs: RECOVERY_MS, everyMs: 100 },
        );
        t.true(recovered, `a free key locked again within ${RECOVERY_MS} ms`);
        t.is(await look.get(keyFor(heldValue!)), HOLDERS_TOKEN, "the holder's token is untouched");
        const again = await heldAndFree(freeAgainValue!);
        t.false(again.heldBodyRan);
        t.regex(again.held, /^LockAcquireError/);
        t.is(again.freed, 'resolved free');
      },
    );
  }
