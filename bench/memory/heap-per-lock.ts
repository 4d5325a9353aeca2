// What a held lock and a waiting caller cost in heap, and that the heap comes back.
//
//   node --expose-gc bench/.tmp/build/bench/memory/heap-per-lock.js   (after the bench build: scripts/bench.sh)
//
// Against a throwaway redis-server on loopback, through the Redis store, the way an application
// uses the runtime: HELD leases on distinct keys (lock()), then WAITING callers queued behind one
// held key (withLock()), each measured as the growth of the heap after a full GC, divided by the
// count. Then ROUNDS rounds of both, each ended (everything released, every waiter served), to
// show the heap after a round does not grow from round to round. Not a test: heap sizes depend
// on Node's version.
import { close, configure, lock, withLock, type AnyLease } from '../../runtime';
import { startRedisServer } from '../../test/helpers/redis-server';

const HELD = Number(process.env.BENCH_HELD ?? 10_000);
const WAITING = Number(process.env.BENCH_WAITING ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const gc = (globalThis as { gc?: () => void }).gc;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().heapUsed;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;

async function holdMany(round: number): Promise<{ perLock: number; release: () => Promise<void> }> {
  const before = heapAfterGc();
  const leases: AnyLease[] = [];
  // A few hundred at a time: 10,000 SETs in flight at once would measure ioredis's queue too.
  for (let i = 0; i < HELD; i += 500) {
    const batch = Array.from({ length: Math.min(500, HELD - i) }, (_, j) =>
      lock({ businessFlag: 'heapHeld', key: `${round}-${i + j}`, lockTime: 60_000 }),
    );
    leases.push(...(await Promise.all(batch)));
  }
  const perLock = (heapAfterGc() - before) / HELD;
  return { perLock, release: async () => void (await Promise.all(leases.map((lease) => lease.release()))) };
}

async function waitMany(round: number): Promise<{ perWaiter: number; finish: () => Promise<void> }> {
  const key = `waited-${round}`;
  const holder = await lock({ businessFlag: 'heapWaited', key, lockTime: 60_000 });
  const before = heapAfterGc();
  let served = 0;
  // Long enough a wait that none gives up: they are served one by one after the holder lets go.
  const waiters = Array.from({ length: WAITING }, () =>
    withLock(
      { businessFlag: 'heapWaited', key, lockTime: 60_000, retries: 1, waitTime: 600_000 },
      async () => void served++,
    ),
  );
  // Let every waiter reach its wait (its first attempt is answered in process, no round trip).
  await new Promise((resolve) => setTimeout(resolve, 500));
  const perWaiter = (heapAfterGc() - before) / WAITING;
  return {
    perWaiter,
    finish: async () => {
      await holder.release();
      await Promise.all(waiters);
      if (served !== WAITING) throw new Error(`served ${served} of ${WAITING}`);
    },
  };
}

async function main(): Promise<void> {
  if (!gc) throw new Error('run with node --expose-gc');
  const redis = await startRedisServer();
  try {
    configure({ redis: redis.url });
    // Warm up: the connections, the subscriber, the scripts, the JIT.
    await (await holdMany(-1)).release();
    await (await waitMany(-1)).finish();
    const baseline = heapAfterGc();
    const rounds: { perLock: number; perWaiter: number; after: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const held = await holdMany(round);
      await held.release();
      const waited = await waitMany(round);
      await waited.finish();
      rounds.push({ perLock: held.perLock, perWaiter: waited.perWaiter, after: heapAfterGc() });
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log(
      `heap, Node ${process.version}, Redis store, ${HELD} held locks and ${WAITING} waiting callers, ${ROUNDS} rounds:`,
    );
    console.log(
      `  per held lock       ${kib(median(rounds.map((r) => r.perLock)))} (median; ${rounds.map((r) => kib(r.perLock)).join(', ')})`,
    );
    console.log(
      `  per waiting caller  ${kib(median(rounds.map((r) => r.perWaiter)))} (median; ${rounds.map((r) => kib(r.perWaiter)).join(', ')})`,
    );
    console.log(
      `  heap after warm-up ${kib(baseline)}; after each round: ${rounds.map((r) => kib(r.after)).join(', ')}`,
    );
    console.log(`  growth over ${ROUNDS} rounds: ${kib(rounds[rounds.length - 1].after - rounds[0].after)}`);
  } finally {
    await close();
    await redis.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
