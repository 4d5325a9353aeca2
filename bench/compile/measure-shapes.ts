// Every project shape: generated, then built `runs` times each way.
import { join } from 'node:path';
import { generateProject } from './generate-project';
import { pluginShare, type PluginShare } from './plugin-share';
import { COMPILE_SHAPES, describeShape, type CompileShape } from './shapes';
import { timeCompile, type CompileTimes } from './time-compile';

export interface ShapeTimes {
  readonly shape: CompileShape;
  readonly taggedMethods: number;
  readonly times: CompileTimes;
  /**
   * From CPU profiles of PROFILED_BUILDS more plugin builds (plugin-share.ts), the one of median
   * share; undefined when they failed. One profile's share moves by ±15 ms from build to build.
   */
  readonly share: PluginShare | undefined;
  /** lockweave's milliseconds in each profiled build. */
  readonly profiledMs: readonly number[];
}

const PROFILED_BUILDS = 3;

export function measureShapes(
  tmpDir: string,
  transformPath: string,
  runs: number,
  log: (line: string) => void,
  notes: string[],
): ShapeTimes[] {
  return COMPILE_SHAPES.map((shape) => {
    log(`compile time, ${shape.id}: generating ${describeShape(shape)}…`);
    const project = generateProject(join(tmpDir, `compile-${shape.id}`), shape, join(__dirname, 'reading-floor.js'));
    const times = timeCompile(project, runs * shape.runsScale, log);
    if (times.wovenMethods !== project.taggedMethods) {
      notes.push(
        `Compile time (${shape.id}): the plugin build emitted ${times.wovenMethods} defineLock() calls for ${project.taggedMethods} tagged methods.`,
      );
    }
    log(`compile time, ${shape.id}: ${PROFILED_BUILDS} more plugin builds, profiled…`);
    const shares = Array.from({ length: PROFILED_BUILDS }, () => pluginShare(project, transformPath)).filter(
      (share): share is PluginShare => share !== undefined,
    );
    const byShare = [...shares].sort((a, b) => a.lockweaveMs / a.totalMs - b.lockweaveMs / b.totalMs);
    const share = byShare[Math.floor(byShare.length / 2)];
    return { shape, taggedMethods: project.taggedMethods, times, share, profiledMs: shares.map((s) => s.lockweaveMs) };
  });
}
