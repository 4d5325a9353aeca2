// Compile time with and without the plugin: `tspc -p` on a generated project, both builds per
// run, in an order that alternates from run to run so that machine load hits both alike;
// medians, and the median of per-run ratios. Both use tspc, so the figures are the plugin's own
// cost (which includes reading the JSDoc of tagged files: transformer/parse/jsdoc-view.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { GeneratedProject } from './generate-project';
import { CPU_MARK } from './cpu-mark';

/** `floor`: tspc with reading-floor.ts, what reading the tags alone costs. */
export const BUILDS = ['plain', 'floor', 'plugin'] as const;
export type Build = (typeof BUILDS)[number];

export interface CompileTimes {
  /** Wall milliseconds per run, index i of each list from the same run. */
  readonly ms: Readonly<Record<Build, number[]>>;
  /** CPU milliseconds (user + system) of the same runs: steadier than wall time under load. */
  readonly cpuMs: Readonly<Record<Build, number[]>>;
  /** defineLock() calls found in the plugin build's output: proof it wove (0 = it did not). */
  readonly wovenMethods: number;
  readonly pluginError?: string;
}

const TSPC = require.resolve('ts-patch/bin/tspc');
const REPORT_CPU = join(__dirname, 'report-cpu.js');

function tsconfigOf(project: GeneratedProject, build: Build): string {
  return { plain: project.withoutPlugin, floor: project.withReadingFloor, plugin: project.withPlugin }[build];
}

function compileOnce(
  project: GeneratedProject,
  tsconfig: string,
): { ms: number; cpuMs: number; ok: boolean; output: string } {
  rmSync(join(project.dir, 'out'), { recursive: true, force: true });
  const started = performance.now();
  const run = spawnSync(process.execPath, ['-r', REPORT_CPU, TSPC, '-p', tsconfig], {
    cwd: project.dir,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const ms = performance.now() - started;
  const at = run.stderr.lastIndexOf(CPU_MARK);
  const cpuMs = at < 0 ? NaN : Number.parseInt(run.stderr.slice(at + CPU_MARK.length), 10) / 1000;
  const stderr = at < 0 ? run.stderr : run.stderr.slice(0, at);
  return { ms, cpuMs, ok: run.status === 0, output: `${run.stdout}${stderr}`.trim() };
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
  const ms: Record<Build, number[]> = { plain: [], floor: [], plugin: [] };
  const cpuMs: Record<Build, number[]> = { plain: [], floor: [], plugin: [] };
  let wovenMethods = 0;
  let pluginError: string | undefined;
  // One unmeasured build each first: the first build after the project is written reads cold
  // files and was up to 2× slower, which would land on whichever build happened to go first.
  for (const build of BUILDS) compileOnce(project, tsconfigOf(project, build));
  for (let i = 0; i < runs; i++) {
    const order = BUILDS.map((_, k) => BUILDS[(i + k) % BUILDS.length]);
    for (const build of order) {
      const result = compileOnce(project, tsconfigOf(project, build));
      if (!result.ok) {
        if (build !== 'plugin')
          throw new Error(`tspc failed on the generated project (${build} build):\n${result.output.slice(0, 2000)}`);
        pluginError = result.output.slice(0, 2000);
      }
      ms[build].push(result.ms);
      cpuMs[build].push(result.cpuMs);
      if (build === 'plugin' && result.ok) wovenMethods = countWoven(project);
      log(
        `  compile #${i + 1} ${build}: ${(result.ms / 1000).toFixed(2)} s, CPU ${(result.cpuMs / 1000).toFixed(2)} s${result.ok ? '' : ' (FAILED)'}`,
      );
    }
  }
  return { ms, cpuMs, wovenMethods, pluginError };
}
