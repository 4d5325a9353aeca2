// Reading what the counter workers left in Redis and adding up what they reported.
import { Redis } from 'ioredis';
import type { WorkerMessage } from './workers';
import { ADMIN_OPTIONS, lockLeftovers } from './admin';

export interface CounterTotals {
  readonly ops: number;
  readonly overlapsSeen: number;
  readonly maxElapsedMs: number;
  /** The longest wait for the lock, and the longest release, in any call. */
  readonly maxWaitMs: number;
  readonly maxReleaseMs: number;
  readonly increments: Record<string, number>;
  readonly errors: Record<string, number>;
  readonly sampleErrors: unknown[];
  readonly events: Record<string, number>;
}

export function addResults(results: readonly WorkerMessage[]): CounterTotals {
  const totals = {
    ops: 0,
    overlapsSeen: 0,
    maxElapsedMs: 0,
    maxWaitMs: 0,
    maxReleaseMs: 0,
    increments: {} as Record<string, number>,
    errors: {} as Record<string, number>,
    sampleErrors: [] as unknown[],
    events: {} as Record<string, number>,
  };
  const add = (into: Record<string, number>, from: unknown) => {
    for (const [name, count] of Object.entries((from ?? {}) as Record<string, number>))
      into[name] = (into[name] ?? 0) + count;
  };
  for (const result of results) {
    totals.ops += result.ops as number;
    totals.overlapsSeen += result.overlaps as number;
    totals.maxElapsedMs = Math.max(totals.maxElapsedMs, result.maxElapsedMs as number);
    totals.maxWaitMs = Math.max(totals.maxWaitMs, result.maxWaitMs as number);
    totals.maxReleaseMs = Math.max(totals.maxReleaseMs, result.maxReleaseMs as number);
    add(totals.increments, result.increments);
    add(totals.errors, result.errors);
    add(totals.events, result.events);
    totals.sampleErrors.push(...(result.sampleErrors as unknown[]));
  }
  return totals;
}

export interface RedisState {
  readonly counters: Record<string, number>;
  readonly overlapsRecorded: number;
  /** Keys whose `inside` marker is still set: a body that never left, or an overlap. */
  readonly insideLeft: string[];
  /** Lock keys still in Redis. */
  readonly lockKeys: string[];
}

export async function readRedisState(url: string, keys: readonly string[]): Promise<RedisState> {
  const admin = new Redis(url, ADMIN_OPTIONS);
  try {
    const counters: Record<string, number> = {};
    const insideLeft: string[] = [];
    for (const key of keys) {
      counters[key] = Number((await admin.get(`fault:counter:${key}`)) ?? '0');
      if ((await admin.exists(`fault:inside:${key}`)) === 1) insideLeft.push(key);
    }
    const overlapsRecorded = Number((await admin.get('fault:overlaps')) ?? '0');
    const lockKeys = await lockLeftovers(admin);
    return { counters, overlapsRecorded, insideLeft, lockKeys };
  } finally {
    admin.disconnect();
  }
}

/** Increments the workers say were acknowledged, minus what the counters hold: updates lost. */
export function lostUpdates(reported: Record<string, number>, counters: Record<string, number>): number {
  let lost = 0;
  for (const key of new Set([...Object.keys(reported), ...Object.keys(counters)])) {
    lost += Math.abs((reported[key] ?? 0) - (counters[key] ?? 0));
  }
  return lost;
}
