// Compiling a fixture project with the real ts-patch compiler, as a user's build would.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const repoRoot = join(__dirname, '..', '..');
const tspc = join(repoRoot, 'node_modules', 'ts-patch', 'bin', 'tspc.js');

export interface CompileResult {
  status: number | null;
  output: string;
}

export function compileWithTspc(args: readonly string[], env: NodeJS.ProcessEnv = {}): CompileResult {
  const result = spawnSync(process.execPath, [tspc, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
