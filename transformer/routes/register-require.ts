// `require` of TypeScript through another loader's hook (lockweave/register's CommonJS half).
//
// Node's own require runs the module.registerHooks load hook (register.ts). Loaders that predate
// those hooks — tsx's require, pirates-based ones — install a `Module._extensions` handler that reads
// the file with fs.readFileSync, strips the types and compiles it: our hook never sees the file,
// and its tags are gone with the comments. Two measures, in whatever order the loaders came:
//   - weave: while such a handler loads a tagged file, its one read of that file returns the
//     woven TypeScript (valid TypeScript, so the loader compiles it as it would the original);
//   - refuse: any TypeScript file compiled that lockweave neither wove nor found tag-free, yet
//     whose text on disk holds tags that weave, throws instead of running unlocked.
// The module object itself (not an import-star copy): its readFileSync is what other loaders call.
import fs = require('node:fs');
import nodeModule = require('node:module');
import * as path from 'node:path';
import { LockweaveBuildError, mayHoldTag, weaveSource, type WeaveSourceOptions } from '../weave-source';

interface CommonJsModule {
  load(this: CommonJsModule, filename: string): void;
  _compile(this: CommonJsModule, content: string, filename: string, ...rest: unknown[]): unknown;
}
interface ModuleInternals {
  prototype: CommonJsModule;
  _extensions: Record<string, (module: CommonJsModule, filename: string) => void>;
}

export interface RequireWeaving {
  /** Files the load hook wove or found tag-free: they need no second look. */
  readonly handled: Set<string>;
  readonly isWeavable: (file: string) => boolean;
  readonly optionsFor: (file: string) => WeaveSourceOptions;
  /** The error for a file that reached Node already stripped of its tags. */
  readonly strippedError: (file: string) => Error;
}

export function weaveRequiredTypeScript(weaving: RequireWeaving): void {
  const Module = nodeModule.Module as unknown as ModuleInternals;
  // Node's own handlers run our load hook; any handler installed later is another loader's.
  const nodeHandlers = new Set(Object.values(Module._extensions));
  const load = Module.prototype.load;
  Module.prototype.load = function (filename) {
    if (!weaving.isWeavable(filename) || nodeHandlers.has(Module._extensions[registeredExtension(Module, filename)])) {
      return load.call(this, filename);
    }
    return readWoven(filename, weaving, () => load.call(this, filename));
  };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, ...rest) {
    // The tspc route's output (ts-node with ts-patch) is woven already: it calls defineLock.
    if (weaving.isWeavable(filename) && !weaving.handled.has(filename) && !/\bdefineLock\(/.test(content) && tagsWeaveOnDisk(filename)) {
      throw weaving.strippedError(filename);
    }
    return compile.call(this, content, filename, ...rest);
  };
}

/** Runs `loadModule` with its first fs.readFileSync of `file` answered by the woven text. */
function readWoven(file: string, weaving: RequireWeaving, loadModule: () => void): void {
  const original = fs.readFileSync(file, 'utf8');
  if (!mayHoldTag(original)) return loadModule();
  const woven = weaveSource(file, original, { ...weaving.optionsFor(file), sourceMap: false });
  if (woven.errors.length > 0) throw new LockweaveBuildError(woven.errors);
  weaving.handled.add(file);
  if (woven.woven === 0) return loadModule();
  const readFileSync = fs.readFileSync;
  // One read, then out of the way: the module's own code runs after it and must see the real fs.
  const answerOnce = function (this: unknown, ...args: Parameters<typeof fs.readFileSync>) {
    if (typeof args[0] !== 'string' || path.resolve(args[0]) !== file) return readFileSync.apply(this, args);
    fs.readFileSync = readFileSync;
    const encoding = typeof args[1] === 'string' ? args[1] : args[1]?.encoding;
    return encoding ? woven.code : Buffer.from(woven.code);
  } as typeof fs.readFileSync;
  fs.readFileSync = answerOnce;
  try {
    return loadModule();
  } finally {
    if (fs.readFileSync === answerOnce) fs.readFileSync = readFileSync;
  }
}

/** True when the file on disk has tags that weave (or fail): a copy without them was not ours to run. */
export function tagsWeaveOnDisk(file: string): boolean {
  let onDisk: string;
  try {
    onDisk = fs.readFileSync(file, 'utf8');
  } catch {
    return false; // virtual or removed: nothing on disk that could have been lost
  }
  if (!mayHoldTag(onDisk)) return false;
  const check = weaveSource(file, onDisk, { sourceMap: false });
  return check.woven > 0 || check.errors.length > 0;
}

/** Node's own choice of handler: the longest registered extension of the base name (`a.b.cts` → `.cts`, else `.js`). */
function registeredExtension(Module: ModuleInternals, filename: string): string {
  const name = path.basename(filename);
  for (let dot = name.indexOf('.', 1); dot !== -1; dot = name.indexOf('.', dot + 1)) {
    if (Object.prototype.hasOwnProperty.call(Module._extensions, name.slice(dot))) return name.slice(dot);
  }
  return '.js';
}
