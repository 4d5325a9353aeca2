// The two projects the compile bench builds, and the target for each (#8): the plugin's
// cost where nearly every file has tags, and where a few dozen methods in a larger code base do.
import type { ProjectShape } from './generate-project';

export interface CompileShape extends ProjectShape {
  readonly id: string;
  /** tspc + lockweave over plain tspc, median of pairs, at most this. */
  readonly maxRatio: number;
  /**
   * Runs of each build, as a multiple of the configured count. One tspc run of the 300-file project
   * lands ±10–20% from the next on the 2-core machine (a pair's ratio has a spread of ~0.1), so the
   * median of 5 pairs moves by ~5%: more than the 2% it is held to. Three times the runs halve that
   * (~70 s more in a full bench); the dense project's 5% shows in 5.
   */
  readonly runsScale: number;
}

export const COMPILE_SHAPES: readonly CompileShape[] = [
  { id: 'dense', files: 200, methodsPerFile: 10, taggedMethods: 2_000, maxRatio: 1.05, runsScale: 1 },
  { id: 'sparse', files: 300, methodsPerFile: 10, taggedMethods: 30, maxRatio: 1.02, runsScale: 3 },
];

export function describeShape(shape: ProjectShape): string {
  return `${shape.files} files, ${shape.taggedMethods.toLocaleString('en')} of ${(shape.files * shape.methodsPerFile).toLocaleString('en')} methods tagged`;
}
