// lockweave/otel against a real redis-server, read back through the OpenTelemetry SDK's in-memory
// reader and exporter: the metric list and the spans of acquisitions that succeed, wait, skip,
// fail, are cancelled and lose their lease; no key value in any attribute; nothing after stop().
// Runs serially: the channels are process-wide, and each test reads what its own calls recorded.
import test from 'ava';
import { context, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { lock, withLock } from 'lockweave';
import { instrumentLocks } from 'lockweave/otel';
import { uniqueId, useRedis } from '../helpers/redis-fixture';

class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const fixture = useRedis(test);
const reader = new TestReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
let stop: () => void;

test.before(() => {
  // The context manager a Node service registers (the SDK's NodeSDK does it): spans find their parents.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  stop = instrumentLocks({ meterProvider, tracerProvider });
});
test.after.always(() => stop?.());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Point {
  readonly name: string;
  readonly attributes: Attributes;
  readonly value: unknown;
}

async function points(): Promise<Point[]> {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  return resourceMetrics.scopeMetrics.flatMap((scope) =>
    scope.metrics.flatMap((metric) =>
      metric.dataPoints.map((point) => ({
        name: metric.descriptor.name,
        attributes: point.attributes,
        value: point.value,
      })),
    ),
  );
}

/** The sum (or histogram count) of a metric's points for one business flag, and outcome when given. */
async function total(name: string, businessFlag: string, outcome?: string): Promise<number> {
  return (await points())
    .filter((point) => point.name === name && point.attributes['lock.business_flag'] === businessFlag)
    .filter((point) => outcome === undefined || point.attributes['lock.outcome'] === outcome)
    .reduce(
      (sum, point) => sum + (typeof point.value === 'number' ? point.value : (point.value as { count: number }).count),
      0,
    );
}

test.serial(
  'an acquisition that waits: the metric list, an acquire span per call and a hold span per body',
  async (t) => {
    const flag = uniqueId('otelPay');
    const key = uniqueId('customer-4711');
    spans.reset();
    // The first holds the lock until the test has seen the second wait (at most 10 s). The bound's
    // timer is cleared once the test lets go: left running, it kept the worker alive 10 s past the file's end.
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => {
      const bound = setTimeout(resolve, 10_000);
      letGo = () => {
        clearTimeout(bound);
        resolve();
      };
    });
    let entered = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = withLock({ businessFlag: flag, key }, async () => {
      entered();
      await gate;
    });
    await inside;
    const second = withLock({ businessFlag: flag, key }, async () => undefined);
    // While the second waits in line, the gauge counts it.
    let waiting = 0;
    for (let i = 0; i < 200 && waiting === 0; i++) {
      await sleep(25);
      waiting = await total('lockweave.lock.waiters', flag);
    }
    letGo();
    t.is(waiting, 1);
    await Promise.all([first, second]);

    t.is(await total('lockweave.lock.acquisitions', flag, 'acquired'), 2);
    t.is(await total('lockweave.lock.contended', flag), 1);
    t.is(await total('lockweave.lock.wait.duration', flag, 'acquired'), 2);
    t.is(await total('lockweave.lock.hold.duration', flag), 2);
    t.is(await total('lockweave.lock.waiters', flag), 0);
    const names = new Set((await points()).map((point) => point.name));
    for (const name of [
      'lockweave.lock.acquisitions',
      'lockweave.lock.contended',
      'lockweave.lock.wait.duration',
      'lockweave.lock.hold.duration',
      'lockweave.lock.waiters',
    ])
      t.true(names.has(name), name);

    const ours = spans.getFinishedSpans().filter((span) => span.attributes['lock.business_flag'] === flag);
    const acquires = ours.filter((span) => span.name === 'lockweave.acquire');
    t.is(acquires.length, 2);
    t.deepEqual(acquires.map((span) => span.attributes['lock.outcome']).sort(), ['acquired', 'acquired']);
    t.deepEqual(acquires.map((span) => span.attributes['lock.attempts']).sort(), [1, 2]);
    t.is(ours.filter((span) => span.name === 'lockweave.hold').length, 2);
    // The key's value is in no span and no metric point.
    const everywhere = JSON.stringify([ours.map((span) => span.attributes), await points()]);
    t.false(everywhere.includes('customer-4711'));
  },
);

test.serial('outcomes: skipped (onFail=skip), failed, cancelled by a signal; a lost lease is counted', async (t) => {
  const flag = uniqueId('otelOutcomes');
  const key = uniqueId('k');
  spans.reset();
  const held = await lock({ businessFlag: flag, key, watchdog: true, lockTime: 600 });
  t.is(await withLock({ businessFlag: flag, key, retries: 0, onFail: 'skip' }, async () => 'ran'), undefined);
  await t.throwsAsync(
    withLock({ businessFlag: flag, key, retries: 0 }, async () => 'ran'),
    { name: 'LockAcquireError' },
  );
  const controller = new AbortController();
  const cancelled = withLock({ businessFlag: flag, key, signal: controller.signal }, async () => 'ran');
  await sleep(50);
  controller.abort(new Error('client went away'));
  await t.throwsAsync(cancelled, { message: 'client went away' });

  // Someone deletes the key: the watchdog's next renewal finds it gone, and the lease is lost.
  await fixture.redis.del(held.key);
  for (let i = 0; i < 100 && !held.signal.aborted; i++) await sleep(50);
  t.true(held.signal.aborted);
  await held.release();

  t.is(await total('lockweave.lock.acquisitions', flag, 'skipped'), 1);
  t.is(await total('lockweave.lock.acquisitions', flag, 'failed'), 1);
  t.is(await total('lockweave.lock.acquisitions', flag, 'cancelled'), 1);
  t.is(await total('lockweave.lock.lost', flag), 1);
  const outcomes = spans
    .getFinishedSpans()
    .filter((span) => span.name === 'lockweave.acquire' && span.attributes['lock.business_flag'] === flag)
    .map((span) => span.attributes['lock.outcome'])
    .sort();
  t.deepEqual(outcomes, ['acquired', 'cancelled', 'failed', 'skipped']);
});

test.serial('recordKeys puts the key on spans; stop() ends the recording', async (t) => {
  const flag = uniqueId('otelKeys');
  const key = uniqueId('k');
  spans.reset();
  const stopKeyed = instrumentLocks({ meterProvider, tracerProvider, recordKeys: true });
  await withLock({ businessFlag: flag, key }, async () => undefined);
  stopKeyed();
  const keyed = spans.getFinishedSpans().filter((span) => span.attributes['lock.key'] !== undefined);
  t.is(keyed.length, 2); // its acquire and hold spans
  t.regex(String(keyed[0].attributes['lock.key']), new RegExp(`${flag}_${key}$`));

  stop();
  spans.reset();
  await withLock({ businessFlag: flag, key }, async () => undefined);
  t.is(spans.getFinishedSpans().length, 0);
  stop = instrumentLocks({ meterProvider, tracerProvider });
});

test.serial('a span of the caller is the acquire span’s parent', async (t) => {
  const flag = uniqueId('otelParent');
  spans.reset();
  const tracer = tracerProvider.getTracer('test');
  await tracer.startActiveSpan('request', async (request) => {
    await withLock({ businessFlag: flag, key: 'k' }, async () => undefined);
    request.end();
  });
  const request = spans.getFinishedSpans().find((span) => span.name === 'request')!;
  const acquire = spans.getFinishedSpans().find((span) => span.name === 'lockweave.acquire')!;
  t.is(acquire.parentSpanContext?.spanId, request.spanContext().spanId);
});
