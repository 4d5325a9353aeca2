// Time in the tests, in one place: one sleep, and one way to wait for an event.
//
// A test waits on something it can observe (a key in Redis, a waiter in the line, a message from a
// worker) with `until`, never on a fixed sleep that guesses how long the machine takes: on a loaded
// 2-core machine any guess is sometimes wrong. A `sleep` is left only where the time itself is
// the point (a fault that lasts N ms, a holder that outlives its lease) or paces a loop.
// Every wait is bounded in time and in rounds, so a condition that never holds fails the test
// with a message instead of hanging it.

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitOptions {
  /** The bound, not a timing claim: generous, for a loaded machine. Default 10 s. */
  readonly timeoutMs?: number;
  /** Time between two checks. Default 10 ms. */
  readonly everyMs?: number;
  /** What is awaited, for the error message ("the waiter's place in the line"). */
  readonly what?: string;
  /** Count a check that throws (a server still starting, a connection being cut) as "not yet". */
  readonly ignoreErrors?: boolean;
}

const MAX_ROUNDS = 1_000_000;

/** Whether `condition` held within the bound (checked at least once). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  options: number | WaitOptions = {},
): Promise<boolean> {
  const {
    timeoutMs = 10_000,
    everyMs = 10,
    ignoreErrors = false,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const held = ignoreErrors
      ? await Promise.resolve()
          .then(condition)
          .catch(() => false)
      : await condition();
    if (held) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
  return false;
}

/** Resolves once `condition` holds; rejects when it has not within the bound. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  options: number | WaitOptions = {},
): Promise<void> {
  const settings = typeof options === 'number' ? { timeoutMs: options } : options;
  if (await eventually(condition, settings)) return;
  throw new Error(`${settings.what ?? 'a condition'} did not hold within ${settings.timeoutMs ?? 10_000} ms`);
}
