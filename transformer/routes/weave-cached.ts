// Weaving one file for a route that runs inside the user's tools — Node's loader, the bundler
// plugins — through the disk cache of woven files (woven-cache.ts): a start or a rebuild whose
// tagged files did not change loads neither the weaver nor TypeScript (~200-300 ms).
//
// The key read from the project (`prefix`, `defaults`) comes from the nearest tsconfig.json, or
// the one the route names, and its `extends` chain: the same plugin entry tspc reads, so every
// route locks the same key. A tag error throws LockweaveBuildError: the route fails loudly.
import * as path from 'node:path';
import { weaver } from './lazy-weaver';
import { projectKeyOf } from './nearest-tsconfig';
import type { CachedWeave, WovenCache } from './woven-cache';

export interface CachedWeaveOptions {
  /** How the runtime is imported, when the route knows; else weaveSource decides from the file. */
  readonly format: 'esm' | 'cjs' | undefined;
  /** The tsconfig to read instead of the nearest. */
  readonly tsconfig?: string;
}

/** Opened on the first tagged file: a process without tags pays nothing for it. */
let cache: WovenCache | null | undefined;

/** The woven text of a file that may hold tags (its own text when none locks), and the config files (and absent paths) it depends on. */
export function weaveCached(file: string, code: string, options: CachedWeaveOptions): CachedWeave {
  if (cache === undefined)
    cache = (require('./woven-cache') as typeof import('./woven-cache')).WovenCache.open() ?? null;
  const { format, tsconfig } = options;
  // A named tsconfig without an entry is refused when the file's own project has one
  // (project-config.ts): the own project's key is part of the key then too, so one that comes to
  // have an entry (a nearer tsconfig.json written later) is read again.
  const own = projectKeyOf(file);
  const key = cache?.key(file, code, format, tsconfig ? `${path.resolve(tsconfig)}\n${own ?? ''}` : own);
  const cached = key ? cache!.read(key) : undefined;
  if (cached) return cached;
  // Read on a miss only: the config reader and what it imports are not needed to find an entry.
  const { projectConfigFor, undecidedError } = require('./project-config') as typeof import('./project-config');
  const project = projectConfigFor(file, tsconfig);
  const { weaveSource, LockweaveBuildError } = weaver();
  const woven = weaveSource(file, code, { ...project.plugin, format });
  if (woven.errors.length > 0) throw new LockweaveBuildError(woven.errors);
  const undecided = undecidedError(file, project, woven.locked);
  if (undecided) throw undecided;
  const result = {
    code: woven.code,
    map: woven.woven > 0 ? woven.map : undefined,
    locked: woven.locked,
    configFiles: project.configFiles,
    absent: project.shadowedBy,
    present: project.present ?? [],
  };
  if (key) cache!.write(key, result);
  return result;
}
