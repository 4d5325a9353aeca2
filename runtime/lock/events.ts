// What the runtime can tell a logger. Silent unless `configure({ logger })` is given one;
// no event object is even built when there is no logger.
import type { LockError, LockLostError } from '../base/errors';

export type LockEvent =
  | { type: 'acquired'; key: string; token: string; attempts: number; waitedMs: number; site?: string }
  | { type: 'reentered'; key: string; site?: string }
  | { type: 'waiting'; key: string; attempt: number; waitMs: number; site?: string; /** The latest attempt failed with this error, not because the key was held. */ error?: Error }
  | { type: 'failed'; key: string; attempts: number; waitedMs: number; site?: string }
  | { type: 'renewed'; key: string; token: string }
  | { type: 'released'; key: string; token: string; heldMs: number }
  | { type: 'kept'; key: string; token: string; heldMs: number }
  | { type: 'lost'; key: string; token: string; error: LockLostError }
  | { type: 'error'; key: string; token?: string; during: 'acquire' | 'renew' | 'release'; error: LockError | Error };

export type LockLogger = (event: LockEvent) => void;

/** A logger that prints the seed's log lines (acquired / waiting attempt n / released). */
export function consoleLogger(print: (line: string) => void = console.log): LockLogger {
  return (event) => print(describeEvent(event));
}

export function describeEvent(event: LockEvent): string {
  const at = 'site' in event && event.site ? ` [${event.site}]` : '';
  switch (event.type) {
    case 'acquired':
      return `lockweave: acquired ${event.key} token=${event.token} after ${event.attempts} attempt(s), waited ${event.waitedMs} ms${at}`;
    case 'reentered':
      return `lockweave: reentered ${event.key} (already held by this call chain)${at}`;
    case 'waiting':
      return event.error
        ? `lockweave: attempt ${event.attempt} on ${event.key} failed: ${event.error.message}; trying again in ${event.waitMs} ms${at}`
        : `lockweave: ${event.key} is held (attempt ${event.attempt} failed); waiting up to ${event.waitMs} ms for its release${at}`;
    case 'failed':
      return `lockweave: gave up on ${event.key} after ${event.attempts} attempt(s), waited ${event.waitedMs} ms${at}`;
    case 'renewed':
      return `lockweave: renewed ${event.key} token=${event.token}`;
    case 'released':
      return `lockweave: released ${event.key} token=${event.token} after ${event.heldMs} ms`;
    case 'kept':
      return `lockweave: kept ${event.key} token=${event.token} until its lease ends (autoUnlock=false)`;
    case 'lost':
      return `lockweave: LOST ${event.key} token=${event.token}: ${event.error.message}`;
    case 'error':
      return `lockweave: ${event.during} of ${event.key} failed: ${event.error.message}`;
  }
}
