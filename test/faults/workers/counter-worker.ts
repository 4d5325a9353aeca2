// A worker application: `loops` concurrent callers each run locked read-modify-write
// increments on a few hot keys, and record what they saw.
//
// The locked method carries a real redisLock JSDoc tag: support/compile-workers.ts compiles this
// file with tspc and the lockweave transformer. Lock times come from the test, through
// configure({ defaults }), since a tag holds literals.
//
// The body proves mutual exclusion by itself: at entry it claims `fault:inside:<key>` with SET NX;
// finding it claimed by another operation means two holders overlapped. It then GETs the
// counter, sleeps a random short while, and SETs counter+1: any overlap loses an update, which
// the test sees as final counter < increments reported. Data commands are retried, which is safe:
// under the lock a repeated GET or SET of the same value changes nothing, and an operation only
// counts its increment once the SET was acknowledged.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import * as lockweave from 'lockweave/runtime';
import type { LockEvent, LockLogger } from 'lockweave/runtime';
import {
  countingLogger,
  describeError,
  exitAfter,
  onCommands,
  readConfig,
  send,
  retried as retriedFor,
} from './protocol';
// Compiled on its own (rootDir is this folder): Node's own promise timer, not test/helpers/time.ts.
import { setTimeout as sleep } from 'node:timers/promises';

export interface CounterWorkerConfig {
  readonly url: string;
  /** The node URLs of a Redis Cluster the locks go to instead of `url` (the data stays on `url`). */
  readonly lockCluster?: readonly string[];
  readonly workerId: string;
  readonly keys: readonly string[];
  /** Concurrent callers in this process. */
  readonly loops: number;
  /** Operations per loop; the loop also stops on a `stop` command or at `runMs`. */
  readonly opsPerLoop: number;
  readonly runMs: number;
  /** The body's random delay between GET and SET is 0..bodyDelayMaxMs. */
  readonly bodyDelayMaxMs: number;
  /** `counter`: the read-modify-write body. `sleep`: a body that does not touch Redis. */
  readonly body: 'counter' | 'sleep';
  readonly lockTime: number;
  readonly retries: number;
  readonly waitTime: number;
  /** Send one `op` message per operation (for timelines). */
  readonly reportOps: boolean;
  /** A pause between one caller's operations (default none): a light, steady caller. */
  readonly gapMs?: number;
}

const config = readConfig<CounterWorkerConfig>();
exitAfter(config.runMs + 30_000);

// `error` events are rare outside faults, and say which token a failed acquire or release had.
const { logger: counting, counts: eventCounts } = countingLogger(['lost', 'reentered', 'error']);
/** The latest lock events, for a `trace` of the key when a lease is reported lost. */
const recent: Array<Record<string, unknown>> = [];
const logger: LockLogger = (event) => {
  const { error, ...rest } = event as LockEvent & { error?: Error };
  recent.push({ t: Date.now(), ...rest, ...(error ? { error: error.message } : {}) });
  if (recent.length > 500) recent.splice(0, 100);
  counting(event);
  if (event.type === 'lost')
    send('trace', {
      key: event.key,
      token: event.token,
      events: recent.filter((entry) => entry.key === event.key).slice(-60),
    });
};
lockweave.configure({
  redis: config.lockCluster ?? config.url,
  logger,
  defaults: { lockTime: config.lockTime, retries: config.retries, waitTime: config.waitTime },
});

// Data commands go through their own connection, like an application's own Redis use.
const data = new Redis(config.url, { maxRetriesPerRequest: 3, commandTimeout: 2_000 });
data.on('error', () => undefined);

/**
 * Data commands are retried for this long, which outlasts the test's Redis outages: a body that
 * gave up mid-way would leave its `inside` marker behind and count as a failure of the lock.
 */
const DATA_RETRY_MS = 30_000;

const retried = <T>(command: () => Promise<T>) => retriedFor(command, DATA_RETRY_MS);

interface Outcome {
  incremented: boolean;
  overlap: boolean;
  /** When the body started and ended: the call's time outside them is the lock's. */
  enteredAt?: number;
  leftAt?: number;
}

class CounterWorker {
  /** @redisLock businessFlag=faultCounter keyName=key */
  async increment(key: string, outcome: Outcome): Promise<void> {
    outcome.enteredAt = Date.now();
    try {
      await (config.body === 'counter' ? counterBody(key, outcome) : sleep(Math.random() * config.bodyDelayMaxMs));
    } finally {
      outcome.leftAt = Date.now();
    }
  }
}

async function counterBody(key: string, outcome: Outcome): Promise<void> {
  const opId = randomUUID();
  const inside = `fault:inside:${key}`;
  const counter = `fault:counter:${key}`;
  const claimed = await retried(() => data.set(inside, opId, 'PX', 120_000, 'NX'));
  if (claimed !== 'OK' && (await retried(() => data.get(inside))) !== opId) {
    outcome.overlap = true;
    await retried(() => data.incr('fault:overlaps'));
  }
  const value = Number((await retried(() => data.get(counter))) ?? '0');
  await sleep(Math.random() * config.bodyDelayMaxMs);
  await retried(() => data.set(counter, String(value + 1)));
  outcome.incremented = true;
  // Only the claimant clears the marker: after an overlap it belongs to the other holder.
  if (!outcome.overlap) await retried(() => data.del(inside));
}

let stopping = false;
onCommands((command) => {
  if (command === 'stop') stopping = true;
});

async function runLoop(loop: number, totals: Totals): Promise<void> {
  const worker = new CounterWorker();
  const endAt = Date.now() + config.runMs;
  for (let op = 0; op < config.opsPerLoop && !stopping && Date.now() < endAt; op++) {
    const key = config.keys[Math.floor(Math.random() * config.keys.length)]!;
    const outcome: Outcome = { incremented: false, overlap: false };
    const startedAt = Date.now();
    let error: ReturnType<typeof describeError> | undefined;
    try {
      await worker.increment(key, outcome);
    } catch (caught) {
      error = describeError(caught);
    }
    const endedAt = Date.now();
    const elapsedMs = endedAt - startedAt;
    // Waiting for the lock (until the body began, or the whole call when it never did), and
    // releasing it (from the body's end until the call returned).
    const waitMs = (outcome.enteredAt ?? endedAt) - startedAt;
    const releaseMs = outcome.leftAt === undefined ? 0 : endedAt - outcome.leftAt;
    totals.ops++;
    totals.maxElapsedMs = Math.max(totals.maxElapsedMs, elapsedMs);
    totals.maxWaitMs = Math.max(totals.maxWaitMs, waitMs);
    totals.maxReleaseMs = Math.max(totals.maxReleaseMs, releaseMs);
    if (outcome.incremented) totals.increments[key] = (totals.increments[key] ?? 0) + 1;
    if (outcome.overlap) totals.overlaps++;
    if (error) {
      const name = error.isLockError ? error.name : `body:${error.name}`;
      totals.errors[name] = (totals.errors[name] ?? 0) + 1;
      if (totals.sampleErrors.length < 5) totals.sampleErrors.push(error);
    }
    if (config.reportOps) send('op', { loop, key, startedAt, elapsedMs, waitMs, releaseMs, ok: !error, error });
    if (error) await sleep(20); // an application would not spin on a failing dependency either
    if (config.gapMs) await sleep(config.gapMs);
  }
}

interface Totals {
  ops: number;
  overlaps: number;
  maxElapsedMs: number;
  maxWaitMs: number;
  maxReleaseMs: number;
  increments: Record<string, number>;
  errors: Record<string, number>;
  sampleErrors: ReturnType<typeof describeError>[];
}

async function main(): Promise<void> {
  const totals: Totals = {
    ops: 0,
    overlaps: 0,
    maxElapsedMs: 0,
    maxWaitMs: 0,
    maxReleaseMs: 0,
    increments: {},
    errors: {},
    sampleErrors: [],
  };
  send('ready');
  await Promise.all(Array.from({ length: config.loops }, (_, loop) => runLoop(loop, totals)));
  send('result', { workerId: config.workerId, ...totals, events: eventCounts });
  await lockweave.close();
  data.disconnect();
  process.exit(0);
}

main().catch((error) => {
  send('crash', { error: describeError(error), stack: (error as Error).stack });
  process.exit(2);
});
