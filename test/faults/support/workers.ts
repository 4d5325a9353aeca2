// Worker processes: real Node processes running test/faults/workers/*.ts as compiled by tspc.
//
// A worker reports on stdout, one JSON message per line prefixed with `@@ ` (anything else it
// prints is kept for the failure message), and takes commands on stdin, one word per line.
// Every wait here has an upper bound, and a worker is only ever signalled by its own PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { compiledWorkersDir } from './compile-workers';
import { REPO_ROOT } from './paths';

export interface WorkerMessage {
  readonly kind: string;
  readonly [field: string]: unknown;
}

export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const MESSAGE_PREFIX = '@@ ';

export class Worker {
  readonly messages: WorkerMessage[] = [];
  readonly exited: Promise<WorkerExit>;
  private output = '';
  private listeners: Array<() => void> = [];

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    let pending = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.startsWith(MESSAGE_PREFIX))
          this.messages.push(JSON.parse(line.slice(MESSAGE_PREFIX.length)) as WorkerMessage);
        else this.keep(`${line}\n`);
      }
      this.notify();
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => this.keep(chunk));
    // Commands to a worker that already exited are simply lost; that is not a test failure by itself.
    child.stdin!.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.notify();
        resolve({ code, signal });
      });
    });
  }

  /** Starts `test/faults/workers/<name>.ts`, compiled and woven by tspc, with its config in FAULT_WORKER_CONFIG. */
  static start(name: string, config: object): Worker {
    const child = spawn(process.execPath, [join(compiledWorkersDir(), `${name}.js`)], {
      cwd: REPO_ROOT,
      env: { ...process.env, FAULT_WORKER_CONFIG: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new Worker(name, child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the worker printed that was not a message: stack traces, warnings. */
  get log(): string {
    return this.output;
  }

  send(command: string): void {
    if (this.running) this.child.stdin!.write(`${command}\n`);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) process.kill(this.pid, signal);
  }

  /** The first message (old or new) that matches, within `timeoutMs`. */
  async waitFor(
    match: (message: WorkerMessage) => boolean,
    timeoutMs: number,
    what = 'a message',
  ): Promise<WorkerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      if (!this.running)
        throw new Error(
          `${this.name} (pid ${this.pid}) exited (${this.child.exitCode ?? this.child.signalCode}) before ${what}; its last messages: ${this.lastMessages()}\n${this.tail()}`,
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${this.name} (pid ${this.pid}) sent no ${what} within ${timeoutMs} ms\n${this.tail()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.listeners.push(done);
      });
    }
  }

  waitForKind(kind: string, timeoutMs: number): Promise<WorkerMessage> {
    return this.waitFor((message) => message.kind === kind, timeoutMs, `"${kind}" message`);
  }

  /** Waits for the exit; past `timeoutMs` the worker is SIGKILLed and that is an error. */
  async waitForExit(timeoutMs: number): Promise<WorkerExit> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const result = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (result === 'timeout') {
      this.signal('SIGKILL');
      await this.exited;
      throw new Error(`${this.name} (pid ${this.pid}) did not exit within ${timeoutMs} ms\n${this.tail()}`);
    }
    return result;
  }

  /** For cleanup in `finally`/teardown: ends the worker if it is still running. */
  async dispose(): Promise<void> {
    if (!this.running) return;
    this.signal('SIGKILL');
    await this.exited;
  }

  /** The kinds of the worker's last messages (a `timeout` or `crash` says why it ended), with a crash's error. */
  private lastMessages(): string {
    return JSON.stringify(
      this.messages.slice(-3).map((message) => (message.kind === 'crash' ? message : message.kind)),
    );
  }

  tail(): string {
    return this.output.length > 4000 ? `…${this.output.slice(-4000)}` : this.output;
  }

  private keep(text: string): void {
    this.output += text;
    if (this.output.length > 100_000) this.output = this.output.slice(-50_000);
  }

  private notify(): void {
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

/** Waits for all workers' exits, each bounded by `timeoutMs`. */
export async function waitForAll(workers: readonly Worker[], timeoutMs: number): Promise<WorkerExit[]> {
  return Promise.all(workers.map((worker) => worker.waitForExit(timeoutMs)));
}
