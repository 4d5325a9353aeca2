// `require` of TypeScript through another loader's hook (lockweave/register's CommonJS half).
//
// Node's own require runs the module.registerHooks load hook (register.ts). Loaders that predate
// those hooks — tsx's require, pirates-based ones — install a `Module._extensions` handler that reads
// the file with fs.readFileSync, strips the types and compiles it: our hook never sees the file,
// and its tags are gone with the comments. Two measures, whichever loader was installed first:
//   - weave: while such a handler loads a tagged file, every fs.readFileSync of that file (by path,
//     Buffer or file: URL, as text or bytes) returns the woven TypeScript (valid TypeScript, so the
//     loader compiles it as it would the original), until the file's own code starts to run;
//   - check: what reaches Module.prototype._compile decides, never which reads were answered — a
//     handler may also read the file its own way, or compile text it got elsewhere (a cache). A
//     file compiled as lockweave handed it on (the text itself, or with its types blanked out as
//     type stripping does), or compiled from it (it calls every lock the woven text defines, names
//     the weave chose because the file never uses them), runs. Any other text of a file whose text on
//     disk holds tags runs only if it locks every one of those tagged methods itself — found by
//     site, each a function whose body is the woven call on a lock of lockweave's runtime
//     (weave/woven-shape.ts: ts-node with ts-patch weaves so) — and throws otherwise, instead of
//     running unlocked. Text in a comment or string vouches for nothing.

// The module object itself (not an import-star copy): its readFileSync is what other loaders call.
import fs = require('node:fs');
import nodeModule = require('node:module');
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { weaver } from './lazy-weaver';
import { isCompiledUnderOtherName, isRunUnderOtherName } from '../../runtime/base/loaded-typescript';
import { holdsEvery, locksOnDisk, readDisk, refuseUnwovenName } from './tags-on-disk';
import type { CachedWeave } from './woven-cache';

interface CommonJsModule {
  load(this: CommonJsModule, filename: string): void;
  _compile(this: CommonJsModule, content: string, filename: string, ...rest: unknown[]): unknown;
}
interface ModuleInternals {
  prototype: CommonJsModule;
}

export interface RequireWeaving {
  /** Files found woven or tag-free as they ran (the runtime checks what ran against them): a compile that passed adds its file. */
  readonly handled: Set<string>;
  readonly isWeavable: (file: string) => boolean;
  /** The text to hand on (woven, or the source when nothing is to lock) and what it locks; throws on tag errors. */
  readonly weave: (file: string, source: string) => CachedWeave;
  /** The error for a file that reached Node already stripped of its tags. */
  readonly strippedError: (file: string) => Error;
}

/** What lockweave handed on for a file about to be compiled: the text it was given, and the text it returned. */
interface HandedOn {
  readonly source: string;
  readonly handed: string;
}

/** Files being required whose reads another loader's handler may still make: file → cancel. */
const pendingReads = new Map<string, () => void>();
/** Files whose compile is still to come → what lockweave handed on for them (the load hook, or a read it answered). */
const handedOn = new Map<string, HandedOn>();
/** Files `require` loaded through the load hook whose compile has not yet reached the check. */
const compilePending = new Set<string>();

export function weaveRequiredTypeScript(weaving: RequireWeaving): void {
  const Module = nodeModule.Module as unknown as ModuleInternals;
  const load = Module.prototype.load;
  Module.prototype.load = function (filename) {
    if (!weaving.isWeavable(filename)) {
      // Judged before a handler runs it: one that compiles with a _compile kept from before
      // lockweave's would otherwise run its top level, and any tagged call there, unchecked.
      if (isRunUnderOtherName(filename)) refuseUnwovenName(filename, 'Node', isCompiledUnderOtherName);
      return load.call(this, filename);
    }
    withWovenRead(filename, weaving, () => load.call(this, filename));
    // The file ran, and what the load hook handed on never reached the check below: a handler
    // compiled it with a _compile kept from before lockweave's (one loaded before lockweave/register),
    // text nobody checked. Refused before its exports reach the module that required it.
    if (compilePending.delete(filename)) throw weaving.strippedError(filename);
  };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, ...rest) {
    if (weaving.isWeavable(filename)) {
      // The file's own code runs next, and must see the real fs.
      cancelWovenRead(filename);
      const handed = handedOn.get(filename);
      handedOn.delete(filename);
      compilePending.delete(filename);
      if (!handed || !compiledFrom(content, handed)) assertLocked(filename, content, weaving);
      weaving.handled.add(filename);
    } else {
      // A hook of another tool for a name of its own (`require.extensions['.svc']`) compiled it, or
      // require ran an unknown name (`notes.md`, `pay.JS`) as JavaScript.
      refuseUnwovenName(filename, 'Node', isCompiledUnderOtherName);
    }
    return compile.call(this, content, filename, ...rest);
  };
}

/**
 * Node's own require runs the load hook, which calls this first: the hook weaves (with a source
 * map), so the reads must return the file as it is.
 */
export function cancelWovenRead(file: string): void {
  pendingReads.get(file)?.();
}

/**
 * Called with the text lockweave hands on for `file` (from `source`) when a compile of it follows;
 * `required`: by `require`, whose compile must then reach the check before the file's load ends.
 */
export function noteHandedOn(file: string, source: string, handed: string, required = false): void {
  handedOn.set(file, { source, handed });
  if (required) compilePending.add(file);
}

/**
 * Runs `loadModule` with each fs.readFileSync of `file` answered by the woven text — until the load
 * hook cancels that, or the file's compile starts. Woven lazily, at the first read, so Node's own
 * path weaves once.
 */
function withWovenRead(file: string, weaving: RequireWeaving, loadModule: () => void): void {
  const readFileSync = fs.readFileSync;
  let active = true;
  let woven: string | undefined;
  const answer = function (this: unknown, ...args: Parameters<typeof fs.readFileSync>) {
    if (!active || pathOf(args[0]) !== file) return readFileSync.apply(this, args);
    if (woven === undefined) {
      const source = readDisk(file, 'utf8');
      woven = weaving.weave(file, source).code;
      noteHandedOn(file, source, woven);
    }
    const encoding = typeof args[1] === 'string' ? args[1] : args[1]?.encoding;
    return encoding ? woven : Buffer.from(woven);
  } as typeof fs.readFileSync;
  pendingReads.set(file, () => (active = false));
  fs.readFileSync = answer;
  try {
    return loadModule();
  } finally {
    pendingReads.delete(file);
    active = false;
    // Loads nest (a module requires others while it runs); each restores what it replaced, and
    // one left below a later replacement only passes calls through.
    if (fs.readFileSync === answer) fs.readFileSync = readFileSync;
  }
}

/** The absolute path a readFileSync argument names (a path, a Buffer, a file: URL); undefined for a descriptor. */
function pathOf(target: unknown): string | undefined {
  try {
    if (typeof target === 'string') return path.resolve(target);
    if (Buffer.isBuffer(target)) return path.resolve(target.toString('utf8'));
    if (target instanceof URL) return fileURLToPath(target);
  } catch {
    // Not a file path: not the file.
  }
  return undefined;
}

/**
 * True when `content` was compiled from what lockweave handed on: the text itself; the text with
 * some characters blanked out (type stripping keeps every other character where it was); or a
 * compile of it that calls every lock the weave defined. Those are the definitions whose names the
 * file never uses (the weave picks such names; one quoted from the file, in a string, is not one of
 * them), so no compile of the file's own text has them. Anything else is checked by site.
 */
function compiledFrom(content: string, { source, handed }: HandedOn): boolean {
  if (content === handed) return true;
  if (content.length === handed.length && blanksOnly(content, handed)) return true;
  const locks = [...handed.matchAll(LOCK_DEFINITION)]
    .map((match) => match[1])
    .filter((lock) => !new RegExp(`(?<![\\w$])${escaped(lock)}(?![\\w$])`).test(source));
  return locks.length > 0 && locks.every((lock) => callsLock(content, lock));
}

/** `const pay_lock_1 = lockweave_1.defineLock(`: how the weave binds each lock (weave/define-lock-call.ts). */
const LOCK_DEFINITION = /\bconst\s+([A-Za-z_$][\w$]*)\s*=\s*[A-Za-z_$][\w$]*\s*\.\s*defineLock\s*\(/g;

function callsLock(content: string, lock: string): boolean {
  return new RegExp(`(?<![\\w$.])${escaped(lock)}\\s*\\.\\s*acquire[A-Za-z]*\\s*\\(`).test(content);
}

function escaped(name: string): string {
  return name.replace(/\$/g, '\\$');
}

/** Same length: every character of `content` is the one `handed` has there, or white space. */
function blanksOnly(content: string, handed: string): boolean {
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if (c !== handed.charCodeAt(i) && c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
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
