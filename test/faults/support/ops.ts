// Reading the per-operation messages of counter workers started with reportOps.
import type { Worker, WorkerMessage } from './workers';

export interface OpMessage {
  readonly loop: number;
  readonly key: string;
  readonly startedAt: number;
  readonly elapsedMs: number;
  /** Until the body began (the whole call when it never did). */
  readonly waitMs: number;
  /** From the body's end until the call returned: the release. */
  readonly releaseMs: number;
  readonly ok: boolean;
  readonly error?: { name: string; message: string; isLockError: boolean; cause?: string };
}

export function opsOf(worker: Worker): OpMessage[] {
  return worker.messages.filter((message: WorkerMessage) => message.kind === 'op') as unknown as OpMessage[];
}

/** Waits until the worker reports `count` successful operations that started after `since`. */
export async function waitForSuccesses(worker: Worker, since: number, count: number, timeoutMs: number): Promise<void> {
  let seen = 0;
  await worker.waitFor(
    () => (seen = opsOf(worker).filter((op) => op.ok && op.startedAt >= since).length) >= count,
    timeoutMs,
    `${count} successful operations after ${new Date(since).toISOString()} (saw ${seen})`,
  );
}
