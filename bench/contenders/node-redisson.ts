// node-redisson 1.0.4 (a port of Java Redisson's RLock): `redisson.getLock(key)` per call, then
// `tryLock(GIVE_UP_MS, LEASE_MS)` … `unlock()`. The lock is a hash (holder id → hold count), and
// unlock announces the release, so waiters sleep until a release instead of polling.
//
// Why eventAdapter 'streams' and not its default 'pubsub': with pub/sub, waiters on a hot key lose
// their wake-ups and give up. Each wait arms a timeout (min(lock's TTL, wait left)) that is never
// cleared when the release message comes first; when it fires, seconds later, it UNSUBSCRIBEs the
// key's channel on the one subscriber connection that every waiter in the process shares, so the
// waiters of that moment hear no more releases until their own timeouts end their tryLock with
// `false` (BENCH_QUICK: failed calls in 3 of 7 runs, 11 in all; 16 callers × 30 sections alone: 24 of 480). With
// streams (its documented alternative, Redis ≥ 5) unlock XADDs to one stream that a blocked XREAD
// reads, and the stale timeout only removes an in-process listener. Two faults are left in both
// modes, and the bench counts the callers they fail (streams: 1 call in 8 quick runs, 5 in 28 full runs):
// - a waiter listens only after its refused try (Java Redisson subscribes first), so a release
//   event read before the refusal's reply is lost, and that waiter sleeps out its wait unless
//   another release comes (a run stalls, then one caller gives up);
// - tryLock's wait budget subtracts the time since the *first* try at every check, not since the
//   last one, so a waiter woken by many releases (every release wakes every waiter of the key, in
//   every process) gives up long before GIVE_UP_MS — the failures of the multi-process scenario.
//
// It cannot take the bench's client: `new Redisson({ redis: { options } })` opens two ioredis
// connections of its own (commands, with its Lua scripts defined on them, and the XREAD reader),
// so it gets the bench client's host and port; the scenario's body still uses the bench's client.
// One Redisson per process, as its README shows; a lock object per call, because the object
// carries the holder id (callers sharing one would be reentrant holders of one lock).
//
// Why tryLock with both times: a lease given explicitly turns off its watchdog (renewal every
// lockWatchdogTimeout / 3), so it holds one 30 s lease per section like the other peers; the wait
// bound is GIVE_UP_MS. It has no retry interval to set: after a refusal it waits for a release
// event, or for min(the lock's remaining TTL, the wait left), then tries again.
import type { Redis } from 'ioredis';
import { Redisson } from 'node-redisson';
import { GIVE_UP_MS, LEASE_MS, type Contender } from './contender';

const CLOSED = 'Connection is closed.';

export function createNodeRedisson(): Contender {
  let redisson: Redisson;
  return {
    name: 'node-redisson',
    settings: `new Redisson({ redis: { options: { host, port } }, eventAdapter: 'streams' }) (its own 2 ioredis connections); getLock(key) per call; tryLock(${GIVE_UP_MS}, ${LEASE_MS}) … unlock() (explicit lease: no watchdog); waiters wake on its unlock event`,
    async setup(client: Redis) {
      const { host, port } = client.options;
      redisson = new Redisson({ redis: { options: { host, port } }, eventAdapter: 'streams' });
    },
    async lock(key, body) {
      const lock = redisson.getLock(key);
      if (!(await lock.tryLock(GIVE_UP_MS, LEASE_MS))) throw new Error(`node-redisson: gave up on ${key}`);
      try {
        return await body();
      } finally {
        await lock.unlock();
      }
    },
    async teardown() {
      // Its quit() never settles with streams: QUIT queues behind the reader's XREAD BLOCK 0. So both
      // connections are dropped, and the one rejection that leaves unhandled (the reader loop, which
      // nobody awaits, failing with "Connection is closed.") is let pass; anything else still crashes.
      process.on('unhandledRejection', (reason) => {
        if (reason instanceof Error && reason.message === CLOSED) return;
        throw reason;
      });
      const internals = redisson as unknown as { commandExecutor: { subscribeRedis: Redis } };
      internals.commandExecutor.subscribeRedis.disconnect();
      redisson.redis.disconnect();
    },
  };
}
