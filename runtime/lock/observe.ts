// lockweave on node:diagnostics_channel: what metrics and tracing tools subscribe to, the way
// undici and the database drivers publish. While nobody subscribes, nothing is built or published:
// a check of `hasSubscribers` per acquisition and per locked body.
//
//   lockweave:acquire   a TracingChannel around each acquisition of a lock (not a reentry): start,
//                       then asyncEnd (and error) with { businessFlag, site, key, attempts, waitedMs,
//                       result: the lease or undefined (onFail=skip) | error }
//   lockweave:hold      a TracingChannel around each locked body (lease.run): { businessFlag, site, key }
//   lockweave:event     every LockEvent (events.ts) with its lock's businessFlag and site:
//                       waiting, acquired, failed, renewed, released, kept, lost, error, reentered
//
// The key holds the caller's value — an order number, a user id: personal data, perhaps. It is in
// every message, as a subscriber in this process may need it; whether it leaves the process is the
// subscriber's choice (the OpenTelemetry wiring, lockweave/otel, records the businessFlag only).
// A subscriber that throws is reported by Node as an uncaught exception after the publish; the lock
// itself goes on either way.
import * as dc from 'node:diagnostics_channel';
import type { LockEvent, LockLogger } from './events';

/** Which lock a message is about: its tag's (or request's) businessFlag, and the woven method. */
export interface LockLabel {
  readonly businessFlag: string;
  readonly site?: string;
}

/** The context of one traced acquisition: filled in as it goes. */
export interface AcquireTrace extends LockLabel {
  readonly key: string;
  /** The caller's, when it gave one: aborted, the acquisition was cancelled. */
  readonly signal?: AbortSignal;
  /** Set once it finds the lock held and waits in line. */
  waiting?: boolean;
  /** Set when every attempt failed (it then fails, or resolves undefined with onFail=skip). */
  gaveUp?: boolean;
  /** Set when it ends: how many attempts it made and how long it waited. */
  attempts?: number;
  waitedMs?: number;
  /** Set by the TracingChannel: the lease (undefined: skipped), or the error it failed with. */
  result?: unknown;
  error?: unknown;
}

export interface HoldTrace extends LockLabel {
  readonly key: string;
  result?: unknown;
  error?: unknown;
}

export type ObservedEvent = LockEvent & LockLabel;

export const CHANNELS = {
  acquire: 'lockweave:acquire',
  hold: 'lockweave:hold',
  event: 'lockweave:event',
} as const;

export const acquireChannel = dc.tracingChannel<AcquireTrace, AcquireTrace>(CHANNELS.acquire);
export const holdChannel = dc.tracingChannel<HoldTrace, HoldTrace>(CHANNELS.hold);
export const eventChannel = dc.channel(CHANNELS.event);

/**
 * The logger of one acquisition and its lease: configure()'s logger, and the event channel while it
 * has subscribers; with a trace, the attempts and wait its end reports go into the trace too.
 */
export function observedLogger(
  logger: LockLogger | undefined,
  label: LockLabel,
  trace?: AcquireTrace,
): LockLogger | undefined {
  if (!trace && !eventChannel.hasSubscribers) return logger;
  return (event) => {
    if (trace && event.type === 'waiting') trace.waiting = true;
    if (trace && event.type === 'failed') trace.gaveUp = true;
    if (trace && (event.type === 'acquired' || event.type === 'failed')) {
      trace.attempts = event.attempts;
      trace.waitedMs = event.waitedMs;
    }
    logger?.(event);
    if (eventChannel.hasSubscribers) {
      const observed: ObservedEvent = { ...event, businessFlag: label.businessFlag, site: label.site };
      eventChannel.publish(observed);
    }
  };
}
