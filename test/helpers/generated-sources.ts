// What the property tests over source text share: the TypeScript files of a tree, and a seeded
// generator for the files they make up.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The TypeScript sources under `dir` (declaration files, node_modules and test/.tmp left out). */
export function typeScriptSourcesUnder(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== '.tmp') typeScriptSourcesUnder(at, out);
    } else if (/\.[cm]?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(at);
  }
  return out;
}

/** A small seeded generator (mulberry32): the same files on every run, a failure reproducible. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let value = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
