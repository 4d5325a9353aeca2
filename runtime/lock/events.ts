// What the runtime can tell a logger. Silent unless `configure({ logger })` is given one;
// no event object is even built when there is no logger.
import type { LockError, LockLostError } from '../base/errors';
import { printable } from '../base/printable';

export type LockEvent =
  | { type: 'acquired'; key: string; token: string; attempts: number; waitedMs: number; site?: string }
  | { type: 'reentered'; key: string; site?: string }
  | {
      type: 'waiting';
      key: string;
      attempt: number;
      waitMs: number;
      site?: string /** The latest attempt failed with this error, not because the key was held. */;
      error?: Error;
    }
  | { type: 'failed'; key: string; attempts: number; waitedMs: number; site?: string }
  | { type: 'renewed'; key: string; token: string }
  | { type: 'released'; key: string; token: string; heldMs: number }
  /** Not deleted after the body: autoUnlock=false (to the lease's end), or minHold (`forMs` more). */
  | { type: 'kept'; key: string; token: string; heldMs: number; forMs?: number }
  | { type: 'lost'; key: string; token: string; error: LockLostError }
  | { type: 'error'; key: string; token?: string; during: 'acquire' | 'renew' | 'release'; error: LockError | Error };

export type LockLogger = (event: LockEvent) => void;

/** A logger that prints the original Java lock's log lines (acquired / waiting attempt n / released). */
export function consoleLogger(print: (line: string) => void = console.log): LockLogger {
  return (event) => print(describeEvent(event));
}

/**
 * One line per event. Every value that comes from outside — a key (the caller's value), a site, a
 * token, an error message — is printed through printable(): a key holding a newline cannot start
 * a forged line of its own, nor a bidi override make a line read as something else.
 */
export function describeEvent(event: LockEvent): string {
  const key = printable(event.key);
  const token = 'token' in event && event.token !== undefined ? printable(event.token) : '';
  const at = 'site' in event && event.site ? ` [${printable(event.site)}]` : '';
  const why = 'error' in event && event.error ? printable(String(event.error.message)) : '';
  switch (event.type) {
    case 'acquired':
      return `lockweave: acquired ${key} token=${token} after ${event.attempts} attempt(s), waited ${event.waitedMs} ms${at}`;
    case 'reentered':
      return `lockweave: reentered ${key} (already held by this call chain)${at}`;
    case 'waiting':
      return event.error
        ? `lockweave: attempt ${event.attempt} on ${key} failed: ${why}; trying again in ${event.waitMs} ms${at}`
        : `lockweave: ${key} is held (attempt ${event.attempt} failed); waiting up to ${event.waitMs} ms for its release${at}`;
    case 'failed':
      return `lockweave: gave up on ${key} after ${event.attempts} attempt(s), waited ${event.waitedMs} ms${at}`;
    case 'renewed':
      return `lockweave: renewed ${key} token=${token}`;
    case 'released':
      return `lockweave: released ${key} token=${token} after ${event.heldMs} ms`;
    case 'kept':
      return event.forMs === undefined
        ? `lockweave: kept ${key} token=${token} until its lease ends (autoUnlock=false)`
        : `lockweave: kept ${key} token=${token} for ${event.forMs} ms more (minHold)`;
    case 'lost':
      return `lockweave: LOST ${key} token=${token}: ${why}`;
    case 'error':
      return `lockweave: ${event.during} of ${key} failed: ${why}`;
  }
}

/**
 * The logger configure() was given, made safe to call from the middle of a lock's life: a logger
 * that throws, or returns a promise that rejects, is a fault of the logging, not of the lock —
 * letting it through would reject a call whose key was just SET (the body unrun, the key stranded
 * for its lease) or break a release. So a failure is swallowed and reported once per logger, as a
 * process warning that names the failure's class only (its message may repeat what the event held).
 */
export function guardedLogger(logger: LockLogger): LockLogger {
  let reported = false;
  const report = (error: unknown, event: LockEvent) => {
    if (reported) return;
    reported = true;
    // Nothing here may throw in turn: the thrown value's `name` may be a getter that throws, and
    // process.emitWarning may be patched; the lock goes on either way.
    let what = 'a value whose name cannot be read';
    try {
      what = error instanceof Error ? String(error.name || 'Error') : typeof error;
    } catch {
      // keep the placeholder
    }
    try {
      process.emitWarning(
        `the logger passed to configure() failed (${printable(String(what)).slice(0, 60)}) on an event of type '${event.type}'; ` +
          'locks go on unaffected, and its further failures are not reported',
        { code: 'LOCKWEAVE_LOGGER_FAILED', type: 'lockweave' },
      );
    } catch {
      // reported as far as it could be
    }
  };
  return (event) => {
    try {
      const returned: unknown = logger(event);
      if (isThenable(returned)) returned.then(undefined, (error: unknown) => report(error, event));
    } catch (error) {
      report(error, event);
    }
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return (
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      typeof (value as { then?: unknown }).then === 'function'
    );
  } catch {
    return false; // a `then` getter that throws
  }
}
