// A clean-up Redis did not answer, sent again: a lease's release (lease.ts) and a give-up's leave
// (acquire.ts). Either would otherwise leave the key held by a caller that is done — until the key's
// TTL ends, 30 s by default — though nothing waits for it but the TTL. Both are token-checked, so
// sending one again is safe: a second one that finds the key gone or someone else's changes nothing.
import { setTimer } from '../base/timer-delay';
import type { LockStore } from '../store/lock-store';

/** Waits before each send again (the last repeated): quick after a blip, then once a second. */
const RETRY_MS = [100, 200, 400, 800, 1000];

/**
 * Sends on a timer at most this many times (about a minute). A longer outage leaves one last send,
 * on the connection's return, while the key may still last — so a long lease is not retried every
 * second for as long as it lasts, nor given up on while Redis restarts.
 */
const MAX_TIMED_SENDS = 60;

export interface CleanUp<T> {
  readonly store: LockStore;
  /** The latest moment the key may still hold the token (read at each send): then Redis has let it go by itself. */
  until(): number;
  /** Sends the clean-up once. */
  send(): Promise<T>;
  /** Called once: with the answer, or undefined when given up. */
  done(answer: T | undefined): void;
}

/**
 * Sends `cleanUp` again after its first send failed: the moment the connection is back, or after a
 * backoff should it never have been lost (a slow answer, a stall), whichever comes first — until it
 * is answered or the key may last no longer. In the background: its caller has its result already.
 * The timers do not keep a finished process alive; a process that exits first leaves the key to
 * its TTL.
 */
export function sendAgain<T>(cleanUp: CleanUp<T>, retry = 0): void {
  const timed = retry < MAX_TIMED_SENDS;
  const leftMs = cleanUp.until() - Date.now();
  const delay = timed ? RETRY_MS[Math.min(retry, RETRY_MS.length - 1)]! : leftMs;
  // A send that would come after the key's end finds nothing to clean up; with the timed sends
  // spent, only the connection's return sends it, and a store without a connection never returns.
  if (timed ? delay >= leftMs : leftMs <= 0 || !cleanUp.store.onceReconnected) return cleanUp.done(undefined);
  let settled = false;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    clearTimeout(timer);
    stopWaitingForReconnect?.();
    return true;
  };
  const send = () => {
    if (!settle()) return;
    cleanUp.send().then(
      (answer) => cleanUp.done(answer),
      () => sendAgain(cleanUp, retry + 1),
    );
  };
  const giveUp = () => {
    if (settle()) cleanUp.done(undefined);
  };
  const timer = setTimer(timed ? send : giveUp, delay);
  timer.unref();
  const stopWaitingForReconnect = cleanUp.store.onceReconnected?.(send);
}
