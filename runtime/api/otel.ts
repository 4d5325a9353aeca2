// lockweave/otel — OpenTelemetry metrics and spans for every lock of this process, from the
// diagnostics channels the runtime publishes on (lock/observe.ts). `@opentelemetry/api` is an
// optional peer: only a process that imports this file needs it.
//
//   import { instrumentLocks } from 'lockweave/otel';
//   const stop = instrumentLocks();          // the global MeterProvider and TracerProvider
//
// What it records, each with the lock's `lock.business_flag` (and `lock.site`, the woven method):
//
//   lockweave.lock.wait.duration   histogram, s   from the first attempt to the grant or the give-up; lock.outcome
//   lockweave.lock.hold.duration   histogram, s   from the grant to the release (or to a kept key's release)
//   lockweave.lock.acquisitions    counter        lock.outcome: acquired | failed | skipped | cancelled | error
//   lockweave.lock.contended       counter        acquisitions that found the lock held at least once
//   lockweave.lock.lost            counter        leases lost while held (the body's signal aborted)
//   lockweave.lock.waiters         gauge          callers of this process waiting in line now
//   span `lockweave.acquire`       per acquisition: lock.attempts, lock.outcome, lock.waited_ms
//   span `lockweave.hold`          per locked body (a sibling of the body's own spans, not their parent)
//
// Never the key's value, unless `recordKeys: true`: a key holds the caller's order number or user
// id, personal data perhaps, and metric attributes with a value per key would also make a series
// per key. An error's message is not recorded for the same reason (it names the key); its class is.
import * as dc from 'node:diagnostics_channel';
import {
  metrics,
  SpanStatusCode,
  trace,
  type Attributes,
  type MeterProvider,
  type ObservableResult,
  type Span,
  type TracerProvider,
} from '@opentelemetry/api';
import { CHANNELS, type AcquireTrace, type HoldTrace, type ObservedEvent } from '../lock/observe';

export interface LockInstrumentationOptions {
  /** Default: the global one (`metrics.getMeterProvider()`). */
  readonly meterProvider?: MeterProvider;
  /** Default: the global one (`trace.getTracerProvider()`). */
  readonly tracerProvider?: TracerProvider;
  /** Record each lock's key as `lock.key` on spans (never on metrics). Default false: keys may be personal data. */
  readonly recordKeys?: boolean;
}

const SCOPE = 'lockweave';
type Outcome = 'acquired' | 'failed' | 'skipped' | 'cancelled' | 'error';

/** TracingChannel.subscribe takes all five handlers; the ones the wiring does not use do nothing. */
const NO_HANDLERS = {
  start: (_message: unknown) => undefined,
  end: (_message: unknown) => undefined,
  asyncStart: (_message: unknown) => undefined,
  asyncEnd: (_message: unknown) => undefined,
  error: (_message: unknown) => undefined,
};

/** Subscribes to the lock channels; returns the function that unsubscribes (a second call does nothing). */
export function instrumentLocks(options: LockInstrumentationOptions = {}): () => void {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const waitDuration = meter.createHistogram('lockweave.lock.wait.duration', {
    unit: 's',
    description: 'How long an acquisition waited, from its first attempt to the grant or the give-up',
  });
  const holdDuration = meter.createHistogram('lockweave.lock.hold.duration', {
    unit: 's',
    description: 'How long a lock was held, from the grant to its release',
  });
  const acquisitions = meter.createCounter('lockweave.lock.acquisitions', {
    description: 'Acquisitions of a lock, by outcome',
  });
  const contended = meter.createCounter('lockweave.lock.contended', {
    description: 'Acquisitions that found the lock held at least once',
  });
  const lost = meter.createCounter('lockweave.lock.lost', { description: 'Leases lost while held' });
  const waiters = meter.createObservableGauge('lockweave.lock.waiters', {
    description: 'Callers of this process waiting in line for a lock',
  });

  // One attributes object per lock, and per lock and outcome, made once: a record with the same
  // object costs the SDK less than building and hashing a new one per section.
  const byLock = new Map<string, { attributes: Attributes; byOutcome: Map<Outcome, Attributes> }>();
  const attributesOf = (of: { businessFlag: string; site?: string }) => {
    const id = `${of.businessFlag}\0${of.site ?? ''}`;
    let found = byLock.get(id);
    if (!found) {
      const attributes: Attributes =
        of.site === undefined
          ? { 'lock.business_flag': of.businessFlag }
          : { 'lock.business_flag': of.businessFlag, 'lock.site': of.site };
      found = { attributes: Object.freeze(attributes), byOutcome: new Map() };
      byLock.set(id, found);
    }
    return found;
  };
  const labels = (of: { businessFlag: string; site?: string }): Attributes => attributesOf(of).attributes;
  const withOutcome = (of: { businessFlag: string; site?: string }, outcome: Outcome): Attributes => {
    const found = attributesOf(of);
    let attributes = found.byOutcome.get(outcome);
    if (!attributes) {
      attributes = Object.freeze({ ...found.attributes, 'lock.outcome': outcome });
      found.byOutcome.set(outcome, attributes);
    }
    return attributes;
  };

  // The acquisitions under way, with their spans: the waiters gauge counts those in line, and
  // reports 0 for a lock that had waiters before (a gauge not observed keeps its last value).
  // A lock's attributes object is made once (attributesOf), so it is the lock's identity here.
  const acquiring = new Map<AcquireTrace, Span>();
  const waitedFor = new Set<Attributes>();
  const observeWaiters = (result: ObservableResult) => {
    const counts = new Map<Attributes, number>();
    for (const pending of acquiring.keys()) {
      if (!pending.waiting) continue;
      const attributes = labels(pending);
      waitedFor.add(attributes);
      counts.set(attributes, (counts.get(attributes) ?? 0) + 1);
    }
    for (const attributes of waitedFor) result.observe(counts.get(attributes) ?? 0, attributes);
  };
  waiters.addCallback(observeWaiters);

  const acquireHandlers = {
    ...NO_HANDLERS,
    start(message: unknown) {
      const pending = message as AcquireTrace;
      const span = tracer.startSpan('lockweave.acquire', {
        attributes: options.recordKeys ? { ...labels(pending), 'lock.key': pending.key } : labels(pending),
      });
      acquiring.set(pending, span);
    },
    asyncEnd(message: unknown) {
      const done = message as AcquireTrace;
      const span = acquiring.get(done);
      acquiring.delete(done);
      const outcome = outcomeOf(done);
      const attributes = withOutcome(done, outcome);
      acquisitions.add(1, attributes);
      if (done.waitedMs !== undefined) waitDuration.record(done.waitedMs / 1000, attributes);
      if ((done.attempts ?? 1) > 1) contended.add(1, labels(done));
      if (!span) return;
      span.setAttribute('lock.outcome', outcome);
      if (done.attempts !== undefined) span.setAttribute('lock.attempts', done.attempts);
      if (done.waitedMs !== undefined) span.setAttribute('lock.waited_ms', done.waitedMs);
      if (done.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: errorClass(done.error) });
      span.end();
    },
  };

  const holding = new Map<HoldTrace, Span>();
  const holdHandlers = {
    ...NO_HANDLERS,
    start(message: unknown) {
      const body = message as HoldTrace;
      holding.set(
        body,
        tracer.startSpan('lockweave.hold', {
          attributes: options.recordKeys ? { ...labels(body), 'lock.key': body.key } : labels(body),
        }),
      );
    },
    asyncEnd(message: unknown) {
      const body = message as HoldTrace;
      const span = holding.get(body);
      holding.delete(body);
      if (!span) return;
      if (body.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: errorClass(body.error) });
      span.end();
    },
  };

  const onEvent = (message: unknown) => {
    const event = message as ObservedEvent;
    if (event.type === 'released' || event.type === 'kept') holdDuration.record(event.heldMs / 1000, labels(event));
    else if (event.type === 'lost') lost.add(1, labels(event));
  };

  const acquireChannel = dc.tracingChannel(CHANNELS.acquire);
  const holdChannel = dc.tracingChannel(CHANNELS.hold);
  acquireChannel.subscribe(acquireHandlers);
  holdChannel.subscribe(holdHandlers);
  dc.subscribe(CHANNELS.event, onEvent);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    acquireChannel.unsubscribe(acquireHandlers);
    holdChannel.unsubscribe(holdHandlers);
    dc.unsubscribe(CHANNELS.event, onEvent);
    waiters.removeCallback(observeWaiters);
    for (const span of [...acquiring.values(), ...holding.values()]) span.end();
    acquiring.clear();
    holding.clear();
  };
}

function outcomeOf(done: AcquireTrace): Outcome {
  if (done.error === undefined) return done.result === undefined ? 'skipped' : 'acquired';
  if (done.signal?.aborted) return 'cancelled';
  return done.gaveUp ? 'failed' : 'error';
}

function errorClass(error: unknown): string {
  try {
    return error instanceof Error ? String(error.name || 'Error') : typeof error;
  } catch {
    return 'unknown';
  }
}
