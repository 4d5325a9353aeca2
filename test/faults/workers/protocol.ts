// The worker side of support/workers.ts: config in, JSON lines out, commands on stdin.
import { createInterface } from 'node:readline';
import { LockError, type LockEvent, type LockLogger } from 'lockweave/runtime';

export function readConfig<T>(): T {
  const text = process.env.FAULT_WORKER_CONFIG;
  if (!text) throw new Error('FAULT_WORKER_CONFIG is not set; workers are started by test/faults/support/workers.ts');
  return JSON.parse(text) as T;
}

export function send(kind: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`@@ ${JSON.stringify({ kind, t: Date.now(), ...fields })}\n`);
}

/** Calls `onCommand` for each line the test writes to our stdin. */
export function onCommands(onCommand: (command: string) => void): void {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => onCommand(line.trim()));
}

/** Counts every lock event, and forwards the rare ones (lost, error, failed) as messages. */
export function countingLogger(forward: ReadonlyArray<LockEvent['type']> = ['lost']): {
  logger: LockLogger;
  counts: Record<string, number>;
} {
  const counts: Record<string, number> = {};
  const logger: LockLogger = (event) => {
    counts[event.type] = (counts[event.type] ?? 0) + 1;
    if (!forward.includes(event.type)) return;
    const { error, ...rest } = event as LockEvent & { error?: Error };
    send('lock-event', { event: { ...rest, error: error && { name: error.name, message: error.message } } });
  };
  return { logger, counts };
}

export function describeError(error: unknown): { name: string; message: string; isLockError: boolean; cause?: string } {
  const err = error as Error & { cause?: unknown };
  return {
    name: err?.name ?? typeof error,
    message: err?.message ?? String(error),
    isLockError: isLockError(error),
    cause: err?.cause instanceof Error ? err.cause.message : undefined,
  };
}

function isLockError(error: unknown): boolean {
  return error instanceof LockError;
}

/** Never let a worker outlive its test: exit on its own after `ms`, whatever it is doing. */
export function exitAfter(ms: number): void {
  setTimeout(() => {
    send('timeout', { afterMs: ms });
    process.exit(3);
  }, ms).unref();
}
