// `npm run bench`, part 3: the lock under connection faults, against a plain SET NX lock under the
// same faults. Writes bench/results-faults.md.
//
// One redis-server (appendonly, fsync always: a restart keeps every acknowledged key, as the fault
// suite's does) behind a fault proxy (test/helpers/fault-proxy.ts). Each run: 6 processes × 4
// callers increment 3 hot keys under a 5 s lease for 20 s (bench/faults/worker.ts), while the
// proxy resets each lock connection 1–4 s after it opens, stalls each for 100–400 ms every 1–4 s,
// and Redis is killed once mid-run and started again a second later. The contenders alternate
// between repetitions; each repetition's ratio pairs two runs made close in time.
// BENCH_QUICK=1: one short repetition (bench/.tmp/quick/). BENCH_FAULT_REPS=n: repetitions (default 3).
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startFaultProxy, type FaultProxy } from '../test/helpers/fault-proxy';
import { startRedisServer, type RedisServer } from '../test/helpers/redis-server';
import { LEASE_MS, POLL_MS, type FaultWorkerConfig, type FaultWorkerResult } from './faults/settings';
import { cpuTicks, machineFacts, stolenSince } from './machine';
import { writeResults } from './paths';
import { median, medianRatio, percentile } from './stats';

const PROCESSES = 6;
const CALLERS = 4;
const KEYS = ['hot-a', 'hot-b', 'hot-c'];
const CONTENDERS = ['lockweave', 'poller'] as const;
type ContenderId = (typeof CONTENDERS)[number];
const NAMES: Record<ContenderId, string> = {
  lockweave: 'lockweave: `@redisLock … lockTime=5s` (default wait: retries=3 waitTime=5s), its own connection',
  poller: `plain lock: SET NX PX ${LEASE_MS}, polled every ${POLL_MS} ms; compare-and-delete release; an ioredis client with its defaults`,
};
const RESET_AFTER_MS = [1_000, 4_000] as const;
const STALL_EVERY_MS = [1_000, 4_000] as const;
const STALL_MS = [100, 400] as const;
const DOWN_MS = 1_000;
const AOF = ['--appendonly', 'yes', '--appendfsync', 'always'];

const log = (line: string) => console.log(line);
const between = ([low, high]: readonly [number, number]) => low + Math.random() * (high - low);

interface Run {
  readonly contender: ContenderId;
  readonly sectionsPerSecond: number;
  readonly p99WaitMs: number;
  readonly maxWaitMs: number;
  readonly failed: number;
  readonly lost: number;
  readonly overlaps: number;
  readonly resets: number;
}

/** Resets and stalls each connection on its own random schedule until stopped; returns the resets made. */
function injectFaults(proxy: FaultProxy): () => number {
  const due = new Map<number, { resetAt: number; stallAt: number }>();
  let resets = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    for (const connection of proxy.connections()) {
      let next = due.get(connection.id);
      if (!next)
        due.set(
          connection.id,
          (next = { resetAt: now + between(RESET_AFTER_MS), stallAt: now + between(STALL_EVERY_MS) }),
        );
      if (now >= next.resetAt) {
        connection.reset();
        resets++;
        continue;
      }
      if (now >= next.stallAt) {
        connection.stall(between(STALL_MS));
        next.stallAt = now + between(STALL_EVERY_MS);
      }
    }
  }, 25);
  return () => {
    clearInterval(timer);
    return resets;
  };
}

async function runOnce(contender: ContenderId, redis: RedisServer, admin: Redis, runMs: number): Promise<Run> {
  await admin.flushall();
  const proxy = await startFaultProxy({ host: redis.host, port: redis.port });
  try {
    const config: FaultWorkerConfig = {
      contender,
      lockUrl: proxy.url,
      dataUrl: redis.url,
      keys: KEYS,
      callers: CALLERS,
      runMs,
    };
    const results = Array.from({ length: PROCESSES }, () => {
      const child = fork(join(__dirname, 'faults', 'worker.js'), [], {
        env: { ...process.env, FAULT_WORKER_CONFIG: JSON.stringify(config) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const killer = setTimeout(() => child.kill('SIGKILL'), runMs + 60_000);
      return new Promise<FaultWorkerResult>((resolve, reject) => {
        child.once('message', (message) => resolve(message as FaultWorkerResult));
        child.once('exit', (code) => {
          clearTimeout(killer);
          reject(new Error(`a ${contender} worker exited (${code}) without a result`));
        });
      });
    });
    const stopFaults = injectFaults(proxy);
    // Redis killed once, mid-run, and started again with its AOF a second later.
    await new Promise((resolve) => setTimeout(resolve, runMs / 2));
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await redis.restart(AOF);
    const workers = await Promise.all(results);
    const resets = stopFaults();
    const waits = workers.flatMap((worker) => worker.waitsMs);
    const sections = workers.reduce((sum, worker) => sum + worker.sections, 0);
    let lost = 0;
    for (const key of KEYS) {
      const reported = workers.reduce((sum, worker) => sum + (worker.increments[key] ?? 0), 0);
      lost += Math.abs(reported - Number((await admin.get(`faults:counter:${key}`)) ?? '0'));
    }
    const firstError = workers.find((worker) => worker.firstError)?.firstError;
    if (firstError) log(`  ${contender}: first failed call: ${firstError}`);
    return {
      contender,
      sectionsPerSecond: sections / (runMs / 1_000),
      p99WaitMs: percentile(waits, 99),
      maxWaitMs: Math.max(0, ...waits),
      failed: workers.reduce((sum, worker) => sum + worker.failed, 0),
      lost,
      overlaps: workers.reduce((sum, worker) => sum + worker.overlaps, 0),
      resets,
    };
  } finally {
    await proxy.close();
  }
}

async function main(): Promise<void> {
  const quick = process.env.BENCH_QUICK === '1';
  const reps = Number(process.env.BENCH_FAULT_REPS) || (quick ? 1 : 3);
  const runMs = quick ? 6_000 : 20_000;
  const startTicks = cpuTicks();
  const machine = machineFacts();
  log(`lockweave bench, faults: node ${machine.node}, redis ${machine.redis}, ${reps} reps of ${runMs / 1_000} s`);
  const redis = await startRedisServer(AOF);
  const admin = new Redis(redis.url, { maxRetriesPerRequest: 50 });
  admin.on('error', () => undefined);
  const runs: Run[] = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse();
      for (const contender of order) {
        const run = await runOnce(contender, redis, admin, runMs);
        runs.push(run);
        log(
          `  rep ${rep + 1} ${contender}: ${run.sectionsPerSecond.toFixed(1)} sections/s, p99 wait ${run.p99WaitMs} ms, ` +
            `${run.failed} failed, ${run.lost} lost, ${run.overlaps} overlaps, ${run.resets} resets`,
        );
      }
    }
  } finally {
    admin.disconnect();
    await redis.stop();
  }
  const markdown = render(runs, { ...machine, stolen: stolenSince(startTicks) }, reps, runMs, quick);
  log('');
  log(markdown);
  writeResults(quick, { 'results-faults.md': markdown }, log);
}

function render(
  runs: readonly Run[],
  machine: ReturnType<typeof machineFacts>,
  reps: number,
  runMs: number,
  quick: boolean,
): string {
  const of = (id: ContenderId) => runs.filter((run) => run.contender === id);
  const out: string[] = [];
  out.push(`# lockweave under connection faults${quick ? ' (BENCH_QUICK smoke run: indicative only)' : ''}`);
  out.push('');
  out.push(
    `Produced by \`npm run bench\` (bench/faults.ts). Node ${machine.node}, redis-server ${machine.redis} (appendonly, fsync always), ` +
      `${machine.cores} cores, load average ${machine.loadAverage} at the start, CPU stolen by the host during the run ${machine.stolen ?? 'not read'}, ${machine.date}.`,
  );
  out.push('');
  out.push(
    `Each run: ${PROCESSES} processes × ${CALLERS} callers increment ${KEYS.length} hot keys under a ${LEASE_MS / 1_000} s lease ` +
      `(GET, 25 ms of work, SET) for ${runMs / 1_000} s. The locks' connections go through a fault proxy that resets each ` +
      `${RESET_AFTER_MS[0] / 1_000}–${RESET_AFTER_MS[1] / 1_000} s after it opens and stalls each for ${STALL_MS[0]}–${STALL_MS[1]} ms every ` +
      `${STALL_EVERY_MS[0] / 1_000}–${STALL_EVERY_MS[1] / 1_000} s; mid-run Redis is killed and started again ${DOWN_MS / 1_000} s later. ` +
      "The bodies' data goes to Redis directly. " +
      `${reps} repetitions, contenders alternating; medians over repetitions; the ratio is the median of per-repetition ratios ` +
      "of sections per second. A wait runs from the call to the body's start, over every section of every process.",
  );
  out.push('');
  out.push(
    '| contender | sections/s | × plain lock | p99 wait (ms) | longest wait (ms) | failed calls | lost updates | overlaps |',
  );
  out.push('|---|---|---|---|---|---|---|---|');
  const plain = of('poller').map((run) => run.sectionsPerSecond);
  for (const id of CONTENDERS) {
    const mine = of(id);
    const sum = (field: 'failed' | 'lost' | 'overlaps') => mine.reduce((total, run) => total + run[field], 0);
    out.push(
      `| ${NAMES[id]} | ${median(mine.map((run) => run.sectionsPerSecond)).toFixed(1)} | ` +
        `${medianRatio(
          mine.map((run) => run.sectionsPerSecond),
          plain,
        ).toFixed(2)}× | ` +
        `${median(mine.map((run) => run.p99WaitMs)).toFixed(0)} | ${Math.max(...mine.map((run) => run.maxWaitMs)).toFixed(0)} | ` +
        `${sum('failed')} | ${sum('lost')} | ${sum('overlaps')} |`,
    );
  }
  out.push('');
  out.push(
    `Connection resets per run (median): lockweave ${median(of('lockweave').map((run) => run.resets))} (two connections a process: ` +
      `commands and release notices), the plain lock ${median(of('poller').map((run) => run.resets))}.`,
  );
  return `${out.join('\n')}\n`;
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
