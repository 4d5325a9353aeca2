// Node clamps a timer delay above 2^31 − 1 ms (about 24.8 days) to 1 ms, with only a warning.
// A 100-day lockTime would then renew its lease in a tight loop. Long delays are capped instead:
// the timer fires early, and its owner (a renewal, a waiter's scheduled attempt) simply runs sooner.
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export function timerDelay(ms: number): number {
  return Math.min(Math.max(ms, 1), MAX_TIMER_DELAY_MS);
}
