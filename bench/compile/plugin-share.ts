// lockweave's own share of a plugin build's CPU, read from a V8 CPU profile of one `tspc -p`.
//
// Why beside the timed runs: on the 2-core machine one tspc run of the realistic project swings by
// ±10–20% from the next (2026-11-26: 10 pairs read 0.87–1.22× plain with a median of 1.005), so a
// ratio of 5 runs cannot tell 1.01× from 1.04×. A sample is the plugin's when a frame of lockweave's
// compiled files (its transformer, and the runtime tables it reads) is on the stack: its analysis,
// its weave, and loading its modules. Not counted: what TypeScript itself spends printing the woven
// methods, and collecting the garbage lockweave leaves; the timed runs hold those.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import type { GeneratedProject } from './generate-project';

export interface PluginShare {
  /** CPU time of the samples with a frame of lockweave's files on the stack. */
  readonly lockweaveMs: number;
  /** CPU time of every sample of the profile: the whole build. */
  readonly totalMs: number;
}

interface CpuProfile {
  readonly nodes: readonly { id: number; callFrame: { url: string }; children?: readonly number[] }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const TSPC = require.resolve('ts-patch/bin/tspc');
/** Microseconds between samples: ~25,000 samples in a 2.5 s build. */
const SAMPLING_US = 100;

/** One profiled plugin build of `project`; `transformPath` is lockweave's entry (its dist folder is lockweave's code). */
export function pluginShare(project: GeneratedProject, transformPath: string): PluginShare | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'lockweave-compile-profile-'));
  try {
    const run = spawnSync(
      process.execPath,
      ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', String(SAMPLING_US), TSPC, '-p', project.withPlugin],
      { cwd: project.dir, encoding: 'utf8', timeout: 300_000 },
    );
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (run.status !== 0 || !file) return undefined;
    // dist/transformer/index.js → dist/: the transformer and the runtime files it imports.
    const lockweaveDir = dirname(dirname(transformPath)) + sep;
    return share(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, lockweaveDir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function share(profile: CpuProfile, lockweaveDir: string): PluginShare {
  const parent = new Map<number, number>();
  const ours = new Map<number, boolean>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
    ours.set(node.id, node.callFrame.url.includes(lockweaveDir));
  }
  /** Whether a frame of lockweave's is on the stack from `id` up (memoized: stacks share their roots). */
  const underLockweave = new Map<number, boolean>();
  const under = (id: number): boolean => {
    const known = underLockweave.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const result = ours.get(id) === true || (up !== undefined && under(up));
    underLockweave.set(id, result);
    return result;
  };
  let lockweaveUs = 0;
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    totalUs += delta;
    if (under(id)) lockweaveUs += delta;
  });
  return { lockweaveMs: lockweaveUs / 1000, totalMs: totalUs / 1000 };
}

/** The share as the reports print it: `1.3%`. */
export function shareText(share: PluginShare): string {
  return `${((100 * share.lockweaveMs) / share.totalMs).toFixed(1)}%`;
}
