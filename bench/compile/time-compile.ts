// Compile time with and without the plugin: `tspc -p` on the generated project, runs
// alternating (plain, plugin, plugin, plain, …) so machine load hits both alike; medians, and
// the median of per-pair ratios. Both sides use tspc, so the figure is the plugin's own cost.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { GeneratedProject } from './generate-project';

export interface CompileTimes {
  readonly plainMs: number[];
  readonly pluginMs: number[];
  /** defineLock() calls found in the plugin build's output: proof it wove (0 = it did not). */
  readonly wovenMethods: number;
  readonly pluginError?: string;
}

const TSPC = require.resolve('ts-patch/bin/tspc');

function compileOnce(project: GeneratedProject, tsconfig: string): { ms: number; ok: boolean; output: string } {
  rmSync(join(project.dir, 'out'), { recursive: true, force: true });
  const started = performance.now();
  const run = spawnSync(process.execPath, [TSPC, '-p', tsconfig], { cwd: project.dir, encoding: 'utf8', timeout: 300_000 });
  const ms = performance.now() - started;
  return { ms, ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim() };
}

function countWoven(project: GeneratedProject): number {
  const out = join(project.dir, 'out');
  let count = 0;
  for (const file of readdirSync(out)) {
    if (file.endsWith('.js')) count += readFileSync(join(out, file), 'utf8').split('defineLock(').length - 1;
  }
  return count;
}

export function timeCompile(project: GeneratedProject, runs: number, log: (line: string) => void): CompileTimes {
  const plainMs: number[] = [];
  const pluginMs: number[] = [];
  let wovenMethods = 0;
  let pluginError: string | undefined;
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? (['plain', 'plugin'] as const) : (['plugin', 'plain'] as const);
    for (const side of order) {
      const result = compileOnce(project, side === 'plain' ? project.withoutPlugin : project.withPlugin);
      if (!result.ok) {
        if (side === 'plain') throw new Error(`tspc failed on the generated project without the plugin:\n${result.output.slice(0, 2000)}`);
        pluginError = result.output.slice(0, 2000);
      }
      (side === 'plain' ? plainMs : pluginMs).push(result.ms);
      if (side === 'plugin' && result.ok) wovenMethods = countWoven(project);
      log(`  compile #${i + 1} ${side}: ${(result.ms / 1000).toFixed(2)} s${result.ok ? '' : ' (FAILED)'}`);
    }
  }
  return { plainMs, pluginMs, wovenMethods, pluginError };
}
