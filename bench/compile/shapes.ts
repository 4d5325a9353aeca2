// The two projects the compile bench builds, and the target for each (#8): the plugin's
// cost where nearly every file has tags, and where a few dozen methods in a larger code base do.
import type { ProjectShape } from './generate-project';

export interface CompileShape extends ProjectShape {
  readonly id: string;
  /** tspc + lockweave over plain tspc, median of pairs, at most this. */
  readonly maxRatio: number;
}

export const COMPILE_SHAPES: readonly CompileShape[] = [
  { id: 'dense', files: 200, methodsPerFile: 10, taggedMethods: 2_000, maxRatio: 1.05 },
  { id: 'sparse', files: 300, methodsPerFile: 10, taggedMethods: 30, maxRatio: 1.02 },
];

export function describeShape(shape: ProjectShape): string {
  return `${shape.files} files, ${shape.taggedMethods.toLocaleString('en')} of ${(shape.files * shape.methodsPerFile).toLocaleString('en')} methods tagged`;
}
