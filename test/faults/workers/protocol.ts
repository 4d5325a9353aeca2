// The worker side of support/workers.ts: config in, JSON lines out, commands on stdin.
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
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

/**
 * Runs a data command until it is answered, for at most `forMs` (1,000 tries, 50 ms apart): a body
 * that gave up mid-way on a Redis outage would leave its marker behind and count as the lock's
 * failure. Safe under the lock: a repeated GET, or SET of the same value, changes nothing.
 */
export async function retried<T>(command: () => Promise<T>, forMs: number): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await command();
    } catch (error) {
      if (attempt >= 1_000 || Date.now() >= deadline) throw error;
      await sleep(50);
    }
  }
}
