// Running the real tools the route tests drive (node, bundlers, jest, tsc, the CLI) as child
// processes: to their end, with their output kept, a few at a time.
import { spawn } from 'node:child_process';

export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr as they came, colour codes removed (some tools colour whatever they are told). */
  readonly output: string;
}

export interface RunOptions {
  readonly cwd: string;
  /** Added to this process's environment; NODE_OPTIONS is cleared unless given. */
  readonly env?: Record<string, string>;
}

/**
 * A runner that starts at most `limit` children at once (the machine may have 2 cores, and each
 * child loads a compiler). A child still running after 90 s is killed, and its test fails.
 */
export function childRunner(
  limit: number,
): (binary: string, args: readonly string[], options: RunOptions) => Promise<Ran> {
  let running = 0;
  const queue: (() => void)[] = [];
  return async (binary, args, options) => {
    if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await new Promise<Ran>((resolve, reject) => {
        const child = spawn(binary, args, {
          cwd: options.cwd,
          env: { ...process.env, NODE_OPTIONS: '', ...options.env },
          timeout: 90_000,
        });
        let stdout = '';
        let stderr = '';
        let output = '';
        child.stdout.on('data', (chunk) => ((stdout += chunk), (output += chunk)));
        child.stderr.on('data', (chunk) => ((stderr += chunk), (output += chunk)));
        child.once('error', reject);
        child.once('close', (status) =>
          resolve({ status, stdout, stderr, output: output.replace(/\x1b\[[0-9;]*m/g, '') }),
        );
      });
    } finally {
      running--;
      queue.shift()?.();
    }
  };
}
