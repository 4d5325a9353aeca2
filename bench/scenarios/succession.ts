// Scenario 4, succession latency: callers queue on one key with an empty body; we time how long
// the key sits idle between one holder and the next while someone is waiting for it.
//
// The holder takes performance.now() as the last thing its body does — immediately before the
// contender's `finally` calls release — and the next holder takes it as the first thing its
// body does. So a succession is: the release round trip + however the waiter learns of it
// (a notice, or its next poll) + its winning acquire round trip. Both times come from one
// process's monotonic clock. A gap counts only when a caller was already waiting at the
// holder's end; gaps with nobody waiting (the last callers trickling out) are not successions.
import type { Contender } from '../contenders/contender';
import { runCallers } from './callers';
import type { RunResult } from './run-result';

export async function runSuccession(
  contender: Contender,
  options: { callers: number; iterations: number; deadlineMs: number; keyPrefix: string },
): Promise<RunResult> {
  const key = `${options.keyPrefix}:succession`;
  const successionsMs: number[] = [];
  let waiting = 0;
  let heldUntil: number | undefined;

  const body = async () => {
    const enteredAt = performance.now();
    waiting--;
    if (heldUntil !== undefined) successionsMs.push(enteredAt - heldUntil);
    // Mark the end for the next holder only if someone is queued right now.
    heldUntil = waiting > 0 ? performance.now() : undefined;
  };
  const result = await runCallers({
    ...options,
    section: async () => {
      waiting++;
      let entered = false;
      try {
        await contender.lock(key, () => {
          entered = true;
          return body();
        });
      } finally {
        if (!entered) waiting--;
      }
    },
  });
  return { ...result, successionsMs };
}
