// Fault kind: a release announced while the waiter's shard subscriber is cut off (a proxy in front
// of each node, cluster-proxies.ts) reaches nobody in its process, as test/faults/missed-notices.test.ts
// has it on one server. The waiter must not then sleep on to its next scheduled attempt (20 s here)
// while the key is free: once its shard subscriber is connected and subscribed again, it looks again.
// Through each Cluster client that says when its subscriber is back: an ioredis Cluster (the runtime's
// own subscriber, cluster-subscriber.ts) and a node-redis cluster, 5 and 6 (node-redis-cluster.ts: its
// primaries' sharded pub/sub connections, watched at each reconnect). Not GLIDE: its client reconnects
// and subscribes again out of sight, and its waiters fall back to their schedule (docs/limits.md).
import test from 'ava';
import { DEFAULT_RELEASE_CHANNEL, defineLock, type LockEvent } from 'lockweave';
import { releaseChannels } from '../../runtime/store/release-channel';
import { keysPerShard } from '../helpers/redis-cluster';
import { until } from '../helpers/time';
import { configuredThrough, everyClusterClient } from './cluster-client';
import { useClusterBehindProxies } from './cluster-proxies';

/** Each waiter's scheduled attempts: only a look on the subscriber's return gets it the key sooner. */
const WAIT_TIME = 20_000;
/** What "soon" means on a loaded 2-core machine: far below WAIT_TIME, far above a reconnect. */
const SOON_MS = 8_000;
const businessFlag = 'clusterMissedNotice';
const SSUBSCRIBE = /^SSUBSCRIBE$/;

const topology = useClusterBehindProxies(test);

const { 'a GLIDE GlideClusterClient': _glide, ...clients } = everyClusterClient(() => [topology().proxies[0]!.url]);

for (const [name, connect] of Object.entries(clients))
  test.serial(
    `${name}: a release while the shard subscriber is cut off: the waiter looks again once it is back`,
    async (t) => {
      const { proxies, look } = topology();
      const events: LockEvent[] = [];
      await configuredThrough(t, connect, { logger: (event) => events.push(event) });
      const lock = defineLock({ businessFlag, retries: 1, waitTime: WAIT_TIME });
      // A key of the first shard, whose primary is behind proxies[0].
      const value = keysPerShard((v) => lock.keyFor(v), `missed-${name}`, 1)[0]![0]!;
      const key = lock.keyFor(value);
      await look.set(key, 'someone-else', 'PX', 60_000);

      const started = Date.now();
      const got = lock.acquire(value);
      // Subscribed on the key's primary, in line, and asleep until its next scheduled attempt.
      await until(async () => events.some((event) => event.type === 'waiting'), {
        what: 'the waiter asleep',
        timeoutMs: 10_000,
      });
      await until(async () => proxies[0]!.carrying(SSUBSCRIBE).length > 0, {
        what: "an SSUBSCRIBE on the key's primary",
        timeoutMs: 10_000,
      });
      // The holder lets go while the subscriber's connection is down: its notice is lost.
      for (const connection of proxies[0]!.carrying(SSUBSCRIBE)) connection.reset();
      await look.del(key);
      await look.spublish(releaseChannels(DEFAULT_RELEASE_CHANNEL, true).of(key), '');

      const lease = await got;
      const tookMs = Date.now() - started;
      t.log(`got the key ${tookMs} ms after asking`);
      t.true(tookMs < SOON_MS, `got the key after ${tookMs} ms (its next scheduled attempt: ${WAIT_TIME} ms)`);
      await lease.release();
    },
  );
