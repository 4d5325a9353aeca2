// Lock metrics and spans through OpenTelemetry: lockweave/otel subscribes to the runtime's
// diagnostics channels and records them on the MeterProvider and TracerProvider you give it (or
// the global ones a NodeSDK sets up). Here an in-memory reader and exporter stand in for your
// collector, so the example can print what a dashboard would get.
//
//   node examples/dist/observed.js          (REDIS_URL, default redis://127.0.0.1:6379)
//
// Prints each metric point (name, attributes, value) and each span (name, outcome, attempts).
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { close, configure } from 'lockweave';
import { instrumentLocks } from 'lockweave/otel';
import { OrderService } from './order-service';

class PrintedReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

async function main(): Promise<void> {
  configure({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  const reader = new PrintedReader();
  const spans = new InMemorySpanExporter();
  const stop = instrumentLocks({
    meterProvider: new MeterProvider({ readers: [reader] }),
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  });

  // Four callers on one order at once: one holds, three wait their turn.
  const orders = new OrderService();
  const orderNo = `T-${process.pid}`;
  await Promise.all([1, 2, 3, 4].map(() => orders.payByValue(orderNo)));

  const { resourceMetrics } = await reader.collect();
  for (const metric of resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)) {
    for (const point of metric.dataPoints) {
      const value = typeof point.value === 'number' ? point.value : `count ${(point.value as { count: number }).count}`;
      console.log(`metric ${metric.descriptor.name} ${JSON.stringify(point.attributes)} ${value}`);
    }
  }
  for (const span of spans.getFinishedSpans()) {
    const { 'lock.outcome': outcome, 'lock.attempts': attempts } = span.attributes;
    console.log(`span ${span.name} ${span.attributes['lock.site']} ${outcome ?? ''} ${attempts ?? ''}`.trimEnd());
  }
  stop();
  await close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
