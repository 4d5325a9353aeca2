// The weaver, loaded on the first file that must be woven. Node's loader and require hook import
// this route into every process they start: a start whose tagged files are all in the woven-file
// cache, or that has none, never loads the weaver, magic-string or TypeScript (~20 ms before
// TypeScript, ~300 ms with it).
import type * as WeaveSource from '../weave-source';

let loaded: typeof WeaveSource | undefined;

export function weaver(): typeof WeaveSource {
  return (loaded ??= require('../weave-source') as typeof WeaveSource);
}
