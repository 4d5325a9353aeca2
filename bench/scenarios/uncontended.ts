// Scenario 1, uncontended: many concurrent callers, each on its own key, empty body.
// Measures the lock's own cost per critical section when nobody ever waits.
import type { Contender } from '../contenders/contender';
import { runCallers } from './callers';
import type { RunResult } from './run-result';

const EMPTY_BODY = (): Promise<void> => Promise.resolve();

export function runUncontended(
  contender: Contender,
  options: { callers: number; iterations: number; deadlineMs: number; keyPrefix: string },
): Promise<RunResult> {
  return runCallers({
    ...options,
    section: (caller) => contender.lock(`${options.keyPrefix}:own:${caller}`, EMPTY_BODY),
  });
}
