// The one way the runtime sets a timer.
//
// Node fires a timer set past 2^31 − 1 ms (about 24.8 days) at once, with only a warning: a 30-day
// lease in MemoryLockStore ended at once and let a second caller in, and a nested call's 3e9 ms wait
// bound gave up after a few ms. So no time a lock must keep may exceed it — lockTime, waitTime and
// retries × waitTime are refused past it up front (base/options.ts), and a store refuses such a
// lease (checkedTimerDelay) — and every timer is set here, where a longer delay is capped rather than
// fired at once: what is left to cap are wake-ups whose owner looks at the time again when woken.
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** setTimeout with the delay kept within what Node can time (at least 1 ms, at most MAX_TIMER_DELAY_MS). */
export function setTimer(callback: () => void, ms: number): NodeJS.Timeout {
  return setTimeout(callback, timerDelay(ms));
}

/** setInterval, likewise. */
export function setRepeatingTimer(callback: () => void, ms: number): NodeJS.Timeout {
  return setInterval(callback, timerDelay(ms));
}

function timerDelay(ms: number): number {
  return Number.isNaN(ms) ? 1 : Math.min(Math.max(ms, 1), MAX_TIMER_DELAY_MS);
}

/** `ms` when a timer can keep it exactly (a whole number of ms, 1 to MAX_TIMER_DELAY_MS); else a RangeError naming `what`. */
export function checkedTimerDelay(ms: number, what: string): number {
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > MAX_TIMER_DELAY_MS) {
    throw new RangeError(
      `lockweave: ${what} of ${String(ms)} ms cannot be kept; it must be a whole number of ms from 1 to ${MAX_TIMER_DELAY_MS} (about 24.8 days, Node's longest timer)`,
    );
  }
  return ms;
}
