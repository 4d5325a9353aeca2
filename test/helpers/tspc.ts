// The one way the end-to-end tests run ts-patch's compiler (tspc), as a user's build does: a
// child process on this Node, `--pretty false` so that diagnostics read `file(line,col): error TSn`,
// and a bound on its time (a compiler that hangs fails its test instead of the whole run).
//
// The unit tests of transformer/parse, check and weave need none of this: they call the stages on
// the TypeScript API in process (test/transformer/{parse,check,weave}).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');

/** The repo's tspc. The route tests that run it among other tools pass this path to their runner. */
export const TSPC = join(REPO_ROOT, 'node_modules', 'ts-patch', 'bin', 'tspc.js');

export interface TspcOptions {
  /** Default: the repo's root. */
  readonly cwd?: string;
  /** Added to this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Default 120 s: a cold compile on a loaded 2-core machine takes 5–20 s. */
  readonly timeoutMs?: number;
}

export interface Compiled {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout then stderr. */
  readonly output: string;
  /** Set when tspc could not be run to its end (it timed out, or did not start). */
  readonly error?: Error;
}

function argv(args: readonly string[]): string[] {
  return [TSPC, ...args, '--pretty', 'false'];
}

/** Runs tspc to its end (blocking: for a test's `before`, or a file that compiles once). */
export function tspc(args: readonly string[], options: TspcOptions = {}): Compiled {
  const result = spawnSync(process.execPath, argv(args), {
    cwd: options.cwd ?? REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    timeout: options.timeoutMs ?? 120_000,
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    output: `${result.stdout}${result.stderr}`,
    error: result.error,
  };
}

/** The same, without blocking the test process: several projects compile at once. */
export function tspcAsync(args: readonly string[], options: TspcOptions = {}): Promise<Compiled> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv(args), {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      timeout: options.timeoutMs ?? 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr, output: `${stdout}${stderr}` }));
  });
}
