// One process of the fault bench (bench/faults.ts): `callers` concurrent callers, each taking the
// lock of a hot key at random, incrementing that key's counter under it (GET, BODY_MS of work,
// SET +1), and letting it go, until `runMs` has passed. The lock's connections go through the
// fault proxy; the body's data goes to Redis directly and is retried, so what the faults cost is
// the lock's alone.
//
// Two locks: lockweave as users write it (a tagged method with its default wait — retries=3,
// waitTime=5s — woven by tspc, on a connection the runtime opens), and the plain lock it is read
// against: SET NX PX polled every 10 ms on an ioredis client with its default options, released
// by a compare-and-delete script, giving up when lockweave's defaults do.
//
// Reports one message to the parent (IPC): sections done, each one's wait, failed calls, and
// overlaps the body saw (a second holder's marker on entry). FAULT_BENCH_EVENTS=1: each lockweave
// process prints its lock events by type on exit (what it waited on, which commands failed).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { close, configure } from 'lockweave/runtime';
import { retried as retriedFor } from '../../test/faults/workers/protocol';
import { LEASE_MS, POLL_MS, type FaultWorkerConfig, type FaultWorkerResult } from './settings';

/** The plain lock gives up when lockweave's default wait does: 3 × 5 s, and 2 s for the last answer. */
const GIVE_UP_MS = 17_000;
/** The body's work between its read and its write. */
const BODY_MS = 25;
/** A data command is retried this long: past the bench's Redis restart. */
const DATA_RETRY_MS = 20_000;

const config = JSON.parse(process.env.FAULT_WORKER_CONFIG ?? '{}') as FaultWorkerConfig;

const data = new Redis(config.dataUrl, { maxRetriesPerRequest: 3, commandTimeout: 2_000 });
data.on('error', () => undefined);

const retried = <T>(command: () => Promise<T>) => retriedFor(command, DATA_RETRY_MS);

/** The body: an increment any overlap would lose, and a marker that shows the overlap at once. */
async function increment(key: string, seen: { overlap: boolean }): Promise<void> {
  const id = randomUUID();
  const inside = `faults:inside:${key}`;
  const claimed = await retried(() => data.set(inside, id, 'PX', 60_000, 'NX'));
  // Refused: another holder's marker — or ours, when the first SET's answer was lost and it was retried.
  if (claimed !== 'OK' && (await retried(() => data.get(inside))) !== id) seen.overlap = true;
  const value = Number((await retried(() => data.get(`faults:counter:${key}`))) ?? '0');
  await sleep(BODY_MS);
  await retried(() => data.set(`faults:counter:${key}`, String(value + 1)));
  if (!seen.overlap) await retried(() => data.del(inside));
}

class FaultBenchService {
  /** @redisLock businessFlag=faults keyName=key lockTime=5s */
  async locked(key: string, body: () => Promise<void>): Promise<void> {
    await body();
  }
}

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/** The plain lock: what a careful user writes by hand. */
function plainLock(): (key: string, body: () => Promise<void>) => Promise<void> {
  const client = new Redis(config.lockUrl);
  client.on('error', () => undefined);
  return async (key, body) => {
    const token = randomUUID();
    const deadline = Date.now() + GIVE_UP_MS;
    for (;;) {
      const taken = await client.set(`LOCK_faults_${key}`, token, 'PX', LEASE_MS, 'NX').catch(() => null);
      if (taken === 'OK') break;
      if (Date.now() > deadline) throw new Error(`gave up on ${key}`);
      await sleep(POLL_MS);
    }
    try {
      await body();
    } finally {
      await client.eval(RELEASE, 1, `LOCK_faults_${key}`, token).catch(() => undefined);
    }
  };
}

async function main(): Promise<void> {
  let lock: (key: string, body: () => Promise<void>) => Promise<void>;
  if (config.contender === 'lockweave') {
    const events: Record<string, number> = {};
    configure({
      redis: config.lockUrl,
      logger: process.env.FAULT_BENCH_EVENTS
        ? (event) => {
            const name = `${event.type}${event.type === 'error' ? `:${event.during}:${event.error.message.slice(0, 40)}` : ''}`;
            events[name] = (events[name] ?? 0) + 1;
          }
        : undefined,
    });
    if (process.env.FAULT_BENCH_EVENTS) process.once('exit', () => console.error(JSON.stringify(events)));
    const service = new FaultBenchService();
    lock = (key, body) => service.locked(key, body);
  } else lock = plainLock();

  const result = {
    sections: 0,
    waitsMs: [] as number[],
    failed: 0,
    overlaps: 0,
    increments: {} as Record<string, number>,
  };
  let firstError: string | undefined;
  const endAt = Date.now() + config.runMs;
  await Promise.all(
    Array.from({ length: config.callers }, async () => {
      while (Date.now() < endAt) {
        const key = config.keys[Math.floor(Math.random() * config.keys.length)]!;
        const seen = { overlap: false };
        const startedAt = Date.now();
        let enteredAt = 0;
        let incremented = false;
        try {
          await lock(key, async () => {
            enteredAt = Date.now();
            await increment(key, seen);
            incremented = true;
          });
        } catch (error) {
          // A failed release after the body is lockweave's to retry; the section still counts.
          if (!incremented) {
            result.failed++;
            firstError ??= String(error);
            await sleep(20);
          }
        }
        if (incremented) {
          result.sections++;
          result.waitsMs.push(enteredAt - startedAt);
          result.increments[key] = (result.increments[key] ?? 0) + 1;
        }
        if (seen.overlap) result.overlaps++;
      }
    }),
  );
  if (config.contender === 'lockweave') await close();
  data.disconnect();
  process.send!({ ...result, firstError } satisfies FaultWorkerResult, () => process.exit(0));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
