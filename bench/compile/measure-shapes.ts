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
  /** From a CPU profile of one more plugin build (plugin-share.ts); undefined when it failed. */
  readonly share: PluginShare | undefined;
}

export function measureShapes(
  tmpDir: string,
  transformPath: string,
  runs: number,
  log: (line: string) => void,
  notes: string[],
): ShapeTimes[] {
  return COMPILE_SHAPES.map((shape) => {
    log(`compile time, ${shape.id}: generating ${describeShape(shape)}…`);
    const project = generateProject(
      join(tmpDir, `compile-${shape.id}`),
      shape,
      transformPath,
      join(__dirname, 'reading-floor.js'),
    );
    const times = timeCompile(project, runs, log);
    if (times.wovenMethods !== project.taggedMethods) {
      notes.push(
        `Compile time (${shape.id}): the plugin build emitted ${times.wovenMethods} defineLock() calls for ${project.taggedMethods} tagged methods.`,
      );
    }
    log(`compile time, ${shape.id}: one more plugin build, profiled…`);
    const share = pluginShare(project, transformPath);
    return { shape, taggedMethods: project.taggedMethods, times, share };
  });
}
