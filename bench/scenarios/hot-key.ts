// Scenario 2 (and each process of scenario 3), hot key: every caller on one key, and the
// body a non-atomic read-modify-write of a Redis counter (GET, then SET of the value + 1).
// Without mutual exclusion two bodies interleave and an increment is lost, so the final
// counter checks the lock: lost updates = completed sections − counter, and must be 0.
import type { Redis } from 'ioredis';
import type { Contender } from '../contenders/contender';
import { runCallers } from './callers';
import type { RunResult } from './run-result';

export function hotKeyNames(keyPrefix: string): { lockKey: string; counterKey: string } {
  return { lockKey: `${keyPrefix}:hot`, counterKey: `${keyPrefix}:counter` };
}

export async function runHotKey(
  contender: Contender,
  client: Redis,
  options: { callers: number; iterations: number; deadlineMs: number; keyPrefix: string },
): Promise<RunResult> {
  const { lockKey, counterKey } = hotKeyNames(options.keyPrefix);
  const increment = async () => {
    const value = Number(await client.get(counterKey));
    await client.set(counterKey, String(value + 1));
  };
  const result = await runCallers({ ...options, section: () => contender.lock(lockKey, increment) });
  return { ...result, counter: Number(await client.get(counterKey)) };
}
