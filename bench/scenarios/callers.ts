// Concurrent async callers, each running critical sections in a loop: bounded by a count
// and by a deadline, so a lock that never grants ends the run instead of hanging it.
import { epochNow, type RunResult } from './run-result';

export interface CallerRun {
  readonly callers: number;
  readonly iterations: number;
  readonly deadlineMs: number;
  /** One critical section by caller `caller`: resolves when the lock call has settled. */
  readonly section: (caller: number, iteration: number) => Promise<void>;
}

export async function runCallers(run: CallerRun): Promise<RunResult> {
  const latenciesMs: number[] = [];
  let failures = 0;
  let cutShort = false;
  const startEpochMs = epochNow();
  const started = performance.now();
  const deadline = started + run.deadlineMs;

  const caller = async (index: number) => {
    for (let i = 0; i < run.iterations; i++) {
      if (performance.now() > deadline) {
        cutShort = true;
        return;
      }
      const t0 = performance.now();
      try {
        await run.section(index, i);
        latenciesMs.push(performance.now() - t0);
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: run.callers }, (_, index) => caller(index)));
  const wallMs = performance.now() - started;
  return {
    sections: latenciesMs.length,
    failures,
    cutShort,
    wallMs,
    startEpochMs,
    endEpochMs: epochNow(),
    latenciesMs,
  };
}
