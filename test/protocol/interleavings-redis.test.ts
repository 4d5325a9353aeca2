// Many callers in three processes (three stores, each with its own connections) through the lock
// layer on one real redis-server, with real concurrency: two of the processes reach Redis through a
// fault proxy that resets or stalls their connections at generated moments. No scheduler can order
// a real server; fast-check generates the crowd and the faults, and each run checks:
//   - never two holders of one key at once (leases are long: none lapses within a run);
//   - every caller is answered — lease or LockAcquireError — by its wait bound (plus slack);
//   - no key left behind: once all are done, the lock keys and their lines are gone.
import test from 'ava';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { ownedClientOptions } from '../../runtime/api/owned-connection';
import { RedisLockStore } from '../../runtime/store/redis-store';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { callerArb, delay, KEYS, newStats, Run } from './callers';
import { modelRuns, replay } from './commands';
import { leftOnRedis } from './store-driver';

const RUNS = modelRuns(15);
/** How long a leftover may take to go: a place's grace (2 s) past the longest wait, and slack. */
const LEFTOVER_BOUND_MS = 6_000;

let server: RedisServer;
let proxy: FaultProxy;
let observer: Redis;
test.before(async () => {
  server = await startRedisServer();
  const { port } = new URL(server.url);
  proxy = await startFaultProxy({ host: '127.0.0.1', port: Number(port) });
  observer = new Redis(server.url);
});
test.after.always(async () => {
  observer?.disconnect();
  await proxy?.close();
  await server?.stop();
});

interface Fault {
  readonly atMs: number;
  readonly kind: 'reset' | 'stall';
  readonly connection: number;
  readonly stallMs: number;
}

const faultArb: fc.Arbitrary<Fault> = fc.record({
  atMs: fc.integer({ min: 0, max: 150 }),
  kind: fc.constantFrom<Fault['kind']>('reset', 'stall'),
  connection: fc.nat(),
  stallMs: fc.integer({ min: 20, max: 600 }),
});

test.serial(
  'callers in three processes on a real Redis never hold a key together, keep their wait bounds, and leave no key behind, through cuts and stalls',
  async (t) => {
    const stats = newStats();
    await fc.assert(
      fc.asyncProperty(
        fc.array(callerArb, { minLength: 2, maxLength: 8 }),
        fc.array(faultArb, { maxLength: 4 }),
        async (callers, faults) => {
          stats.runs++;
          const urls = [proxy.url, proxy.url, server.url];
          const stores = urls.map(
            (url) => new RedisLockStore(new Redis(url, ownedClientOptions({})), { ownsClient: true }),
          );
          const timers = faults.map((fault) =>
            setTimeout(() => {
              const open = proxy.connections();
              const connection = open[fault.connection % Math.max(open.length, 1)];
              if (!connection) return;
              stats.faults++;
              if (fault.kind === 'reset') connection.reset();
              else connection.stall(fault.stallMs);
            }, fault.atMs),
          );
          const run = new Run(stats, () => delay(10));
          try {
            await Promise.all(callers.map((caller, id) => run.caller(stores[caller.process]!, caller, id)));
            const boundAt = Date.now() + LEFTOVER_BOUND_MS;
            let left: (string | undefined)[] = [];
            do {
              left = await Promise.all(KEYS.map((key) => leftOnRedis(observer, key)));
              if (left.every((what) => what === undefined)) break;
              await delay(20);
            } while (Date.now() < boundAt);
            for (const what of left) {
              if (!what) continue;
              const holder = /held by (\S+),/.exec(what)?.[1];
              run.problems.push(
                `left behind after ${LEFTOVER_BOUND_MS} ms: ${what}; events: ${run.events.filter((line) => line.includes(holder ?? '?') || line.includes('"failed"')).join('\n')}`,
              );
            }
          } finally {
            timers.forEach(clearTimeout);
            await Promise.all(stores.map((store) => store.close()));
            await observer.flushdb();
          }
          if (run.problems.length > 0) t.log(run.problems);
          if (run.problems.length > 0) throw new Error(run.problems.join('; '));
        },
      ),
      { numRuns: RUNS, endOnFailure: true, ...replay() },
    );
    t.log(`${stats.runs} runs: ${stats.faults} faults injected, ${stats.acquired} leases, ${stats.gaveUp} give-ups`);
    t.pass();
  },
);
