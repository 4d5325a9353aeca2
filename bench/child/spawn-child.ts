// Parent side of a bench child: fork it, hand it a job, collect its answer. A child that
// overruns its time limit is killed — by its own PID, the only process we touch.
import { fork, type ChildProcess } from 'node:child_process';
import { extname, join } from 'node:path';
import type { ChildMessage, Job, ParentMessage } from './jobs';

const WORKER = join(__dirname, `worker${extname(__filename)}`);

export class BenchChild {
  private readonly child: ChildProcess;
  private readonly messages: ChildMessage[] = [];
  private readonly waiters: Array<() => void> = [];
  private exited = false;
  private stderr = '';

  constructor(
    job: Job,
    private readonly timeoutMs: number,
  ) {
    // Children inherit execArgv, so a bench run under ts-node runs its children the same way.
    this.child = fork(WORKER, [], { stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    this.child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.child.on('message', (message: ChildMessage) => {
      this.messages.push(message);
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.child.on('exit', () => {
      this.exited = true;
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.child.send({ type: 'run', job } satisfies ParentMessage);
  }

  /** The next message of type `type`; rejects on an error message, an early exit or the time limit. */
  async next<T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const index = this.messages.findIndex((message) => message.type === type || message.type === 'error');
      if (index >= 0) {
        const [message] = this.messages.splice(index, 1);
        if (message.type === 'error') throw new Error(`bench child failed: ${message.message}`);
        return message as Extract<ChildMessage, { type: T }>;
      }
      if (this.exited) throw new Error(`bench child exited before '${type}'. stderr: ${this.stderr.trim()}`);
      const left = deadline - Date.now();
      if (left <= 0) {
        this.kill();
        throw new Error(`bench child ${this.child.pid} gave no '${type}' within ${this.timeoutMs} ms; killed`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  go(): void {
    this.child.send({ type: 'go' } satisfies ParentMessage);
  }

  /** Waits for the child to exit (it exits by itself after answering), killing it if it lingers. */
  async finish(): Promise<void> {
    if (this.exited) return;
    const timer = setTimeout(() => this.kill(), 5_000);
    await new Promise<void>((resolve) => (this.exited ? resolve() : this.child.once('exit', () => resolve())));
    clearTimeout(timer);
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

/** Runs one job in a fresh child and returns its answer of type `type`. */
export async function runJob<T extends ChildMessage['type']>(
  job: Job,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  const child = new BenchChild(job, timeoutMs);
  try {
    return await child.next(type);
  } finally {
    await child.finish();
  }
}
