// The nearest tsconfig.json above a file and the tsconfig.*.json beside it, found without loading
// TypeScript or the config reader (project-config.ts): the woven-file cache's key needs only these,
// so a warm start or rebuild loads nothing more to find its entries.
import * as fs from 'node:fs';
import * as path from 'node:path';

const nearestByDir = new Map<string, string | undefined>();

/** The names of the tsconfig files in the nearest one's directory, for the woven-file cache's key. */
export function tsconfigNamesBeside(nearest: string): string {
  return siblingConfigs(nearest)
    .map((file) => path.basename(file))
    .join(',');
}

const siblingsByDir = new Map<string, string[]>();

/** tsconfig.*.json beside the nearest tsconfig.json (read once per process, as the nearest one is found once). */
export function siblingConfigs(nearest: string): string[] {
  const dir = path.dirname(nearest);
  let siblings = siblingsByDir.get(dir);
  if (!siblings) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      // an unreadable directory has no siblings to read either
    }
    siblings = names
      .filter((name) => /^tsconfig\..+\.json$/.test(name))
      .sort()
      .map((name) => path.join(dir, name));
    siblingsByDir.set(dir, siblings);
  }
  return siblings;
}

/** The nearest tsconfig and the names of those beside it (projectConfigFor reads them all): a cache key's part, one appearing weaves again. */
export function projectKeyOf(file: string): string | undefined {
  const nearest = nearestTsconfigOf(file);
  return nearest && `${nearest}|${tsconfigNamesBeside(nearest)}`;
}

/** The tsconfig.json nearest above a file, found without loading TypeScript. */
export function nearestTsconfigOf(fileName: string): string | undefined {
  return nearestTsconfig(path.dirname(path.resolve(fileName)));
}

function nearestTsconfig(dir: string): string | undefined {
  if (nearestByDir.has(dir)) return nearestByDir.get(dir);
  const candidate = path.join(dir, 'tsconfig.json');
  const parent = path.dirname(dir);
  const found = fs.existsSync(candidate) ? candidate : parent === dir ? undefined : nearestTsconfig(parent);
  nearestByDir.set(dir, found);
  return found;
}
