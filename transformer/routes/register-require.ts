// `require` of TypeScript through another loader's hook (lockweave/register's CommonJS half).
//
// Node's own require runs the module.registerHooks load hook (register.ts). Loaders that predate
// those hooks — tsx's require, pirates-based ones — install a `Module._extensions` handler that reads
// the file with fs.readFileSync, strips the types and compiles it: our hook never sees the file,
// and its tags are gone with the comments. Two measures, whichever loader was installed first:
//   - weave: while such a handler loads a tagged file, its one read of that file returns the
//     woven TypeScript (valid TypeScript, so the loader compiles it as it would the original);
//   - check: any TypeScript file compiled that lockweave neither wove nor found tag-free, yet
//     whose text on disk holds tags, runs only if the compiled text locks every one of those
//     tagged methods itself — found by site, each a function whose body is the woven call on a
//     lock of lockweave's runtime (weave/woven-shape.ts: ts-node with ts-patch weaves so) — and
//     throws otherwise, instead of running unlocked. Text in a comment or string vouches for nothing.

// The module object itself (not an import-star copy): its readFileSync is what other loaders call.
import fs = require('node:fs');
import nodeModule = require('node:module');
import * as path from 'node:path';
import { weaver } from './lazy-weaver';
import { holdsEvery, locksOnDisk, readDisk } from './tags-on-disk';
import type { CachedWeave } from './woven-cache';

interface CommonJsModule {
  load(this: CommonJsModule, filename: string): void;
  _compile(this: CommonJsModule, content: string, filename: string, ...rest: unknown[]): unknown;
}
interface ModuleInternals {
  prototype: CommonJsModule;
}

export interface RequireWeaving {
  /** Files the load hook wove or found tag-free: they need no second look. */
  readonly handled: Set<string>;
  readonly isWeavable: (file: string) => boolean;
  /** The text to hand on (woven, or the source when nothing is to lock) and what it locks; throws on tag errors. */
  readonly weave: (file: string, source: string) => CachedWeave;
  /** The error for a file that reached Node already stripped of its tags. */
  readonly strippedError: (file: string) => Error;
}

/** Files being required whose first read another loader's handler may still make: file → cancel. */
const pendingReads = new Map<string, () => void>();

export function weaveRequiredTypeScript(weaving: RequireWeaving): void {
  const Module = nodeModule.Module as unknown as ModuleInternals;
  const load = Module.prototype.load;
  Module.prototype.load = function (filename) {
    if (!weaving.isWeavable(filename)) return load.call(this, filename);
    return withWovenRead(filename, weaving, () => load.call(this, filename));
  };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, ...rest) {
    if (weaving.isWeavable(filename) && !weaving.handled.has(filename)) assertLocked(filename, content, weaving);
    return compile.call(this, content, filename, ...rest);
  };
}

/**
 * Node's own require runs the load hook, which calls this first: the hook weaves (with a source
 * map), so the read must return the file as it is.
 */
export function cancelWovenRead(file: string): void {
  pendingReads.get(file)?.();
}

/**
 * Runs `loadModule` with its first fs.readFileSync of `file` answered by the woven text — unless
 * the load hook cancels that first. Woven lazily, at the read, so Node's own path weaves once.
 */
function withWovenRead(file: string, weaving: RequireWeaving, loadModule: () => void): void {
  const readFileSync = fs.readFileSync;
  let active = true;
  const answerOnce = function (this: unknown, ...args: Parameters<typeof fs.readFileSync>) {
    if (!active || typeof args[0] !== 'string' || path.resolve(args[0]) !== file) return readFileSync.apply(this, args);
    // One read, then out of the way: the module's own code runs after it and must see the real fs.
    active = false;
    const code = weaving.weave(file, readDisk(file, 'utf8')).code;
    const encoding = typeof args[1] === 'string' ? args[1] : args[1]?.encoding;
    return encoding ? code : Buffer.from(code);
  } as typeof fs.readFileSync;
  pendingReads.set(file, () => (active = false));
  fs.readFileSync = answerOnce;
  try {
    return loadModule();
  } finally {
    pendingReads.delete(file);
    active = false;
    // Loads nest (a module requires others while it runs); each restores what it replaced, and
    // one left below a later replacement only passes calls through.
    if (fs.readFileSync === answerOnce) fs.readFileSync = readFileSync;
  }
}

/**
 * Throws unless the text compiled past the load hook (JavaScript another loader made) locks every
 * tagged method of the file on disk — by site, as many of each.
 */
function assertLocked(file: string, content: string, weaving: RequireWeaving): void {
  const onDisk = locksOnDisk(file);
  if (!onDisk) return;
  if (onDisk.errors || !holdsEvery(weaver().lockedSitesOf(file, content), onDisk.sites))
    throw weaving.strippedError(file);
}
