// The nearest tsconfig.json above a file and the tsconfig.*.json beside it, found without loading
// TypeScript or the config reader (project-config.ts): the woven-file cache's key needs only these,
// so a warm start or rebuild loads nothing more to find its entries.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The names of the tsconfig files in the nearest one's directory, for the woven-file cache's key. */
export function tsconfigNamesBeside(nearest: string): string {
  return siblingConfigs(nearest)
    .map((file) => path.basename(file))
    .join(',');
}

/** By directory: the siblings found, and the directory's modification time then (an added or removed file changes it). */
const siblingsByDir = new Map<string, { readonly files: string[]; readonly changed: bigint | undefined }>();

/**
 * tsconfig.*.json beside the nearest tsconfig.json: listed again when the directory changed since,
 * as in a long-running process (a dev server, a watch) one written there later counts.
 */
export function siblingConfigs(nearest: string): string[] {
  const dir = path.dirname(nearest);
  const changed = fs.statSync(dir, { bigint: true, throwIfNoEntry: false })?.mtimeNs;
  const known = siblingsByDir.get(dir);
  if (known && known.changed === changed) return known.files;
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // an unreadable directory has no siblings to read either
  }
  const files = names
    .filter((name) => /^tsconfig\..+\.json$/.test(name))
    .sort()
    .map((name) => path.join(dir, name));
  siblingsByDir.set(dir, { files, changed });
  return files;
}

/** The project key of a file's nearest tsconfig (projectKey), or undefined when it has none. */
export function projectKeyOf(file: string): string | undefined {
  const nearest = nearestTsconfigOf(file);
  return nearest && projectKey(nearest);
}

/**
 * What decides which configs projectConfigFor reads for the files under `nearest`, told from names
 * alone — a part of the woven-file cache's key, so one appearing weaves again: the nearest tsconfig
 * and the names beside it, and each tsconfig.json above with the names beside it (an enclosing
 * project's tsconfig.build.json, written later, gives its entry to a folder without one). A folder
 * without a tsconfig.json adds nothing: one written there changes the key.
 */
export function projectKey(nearest: string): string {
  const parts = [`${nearest}|${tsconfigNamesBeside(nearest)}`];
  for (let dir = path.dirname(path.dirname(nearest)); ; dir = path.dirname(dir)) {
    const above = path.join(dir, 'tsconfig.json');
    if (fs.existsSync(above)) parts.push(`${above}|${tsconfigNamesBeside(above)}`);
    if (path.dirname(dir) === dir) return parts.join('\n');
  }
}

/**
 * The tsconfig.json nearest above a file, found without loading TypeScript. Looked for at each call,
 * not remembered: in a long-running process one written nearer later is the file's project (a
 * stat per folder up to it).
 */
export function nearestTsconfigOf(fileName: string): string | undefined {
  for (let dir = path.dirname(path.resolve(fileName)); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'tsconfig.json');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}
