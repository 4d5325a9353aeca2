// Runs a program that makes one locked call and must then exit by itself, and says when each happened.
import { spawn } from 'node:child_process';

export interface SettledAndExited {
  /** Its stdout, e.g. "LockAcquireError 612". */
  readonly out: string;
  readonly err: string;
  /** Its exit code; null when it was killed, still running after `killAfterMs`. */
  readonly code: number | null;
  /** How long after its start it exited (or was killed). */
  readonly exitedAfterMs: number;
}

export function runToExit(program: string, args: readonly string[], killAfterMs = 60_000): Promise<SettledAndExited> {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [program, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ out, err, code, exitedAfterMs: Date.now() - startedAt });
    });
  });
}
