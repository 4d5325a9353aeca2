// What a file's text on disk locks: the measure every route holds the text it was handed against.
//
// A route weaves the text its tool hands it, and a tool may hand it a file another plugin, loader
// or hook already changed: compiled to JavaScript without comments, or with some of them dropped.
// Tags lost that way would leave their methods unlocked with no error anywhere, so a route that
// was handed a file without tags, or a copy that differs from the file, asks the disk what the
// file locks and refuses a copy that locks less. Text in a comment or a string vouches for nothing:
// the file on disk is woven (TypeScript loaded, only then) to find its tagged methods.

// The module object itself (not an import-star copy): register-require.ts replaces its readFileSync.
import fs = require('node:fs');
import { hasDataName, hasOtherCompiledName, isOtherCompiledName } from '../../runtime/base/loaded-typescript';
import { unwovenNameMessage } from '../../runtime/base/weave-mark';
import { mayHoldTag } from '../parse/find-tags';
import { weaver } from './lazy-weaver';

/** `.d` before a TypeScript extension, and the extension. */
const DECLARATION_SUFFIX = /\.d(\.[cm]?tsx?)$/i;

/** fs.readFileSync as it was when the routes loaded, before any answer of lockweave's: what the file really holds. */
export const readDisk = fs.readFileSync;

/** The sites the file on disk locks, and whether its tags have errors; undefined when it has neither (or cannot be read). */
export function locksOnDisk(
  file: string,
  onDisk = readText(file),
): { sites: readonly string[]; errors: boolean } | undefined {
  if (onDisk === undefined || !mayHoldTag(onDisk)) return undefined;
  // A declaration file's name (`pay.d.cts`) would have TypeScript read it as declarations, bodies
  // and tags unseen: what it holds is read as the code it is where it runs.
  const check = weaver().weaveSource(file.replace(DECLARATION_SUFFIX, '$1'), onDisk, { sourceMap: false });
  return check.locked.length > 0 || check.errors.length > 0
    ? { sites: check.locked, errors: check.errors.length > 0 }
    : undefined;
}

/** True when the file on disk has tags that weave (or fail): a copy without them was not ours to run. */
export function tagsWeaveOnDisk(file: string): boolean {
  return locksOnDisk(file) !== undefined;
}

/**
 * Throws when `file` is a project file under a name no route weaves (`pay.svc`: isOtherCompiledName;
 * at Module's _compile, any name but TypeScript's and JavaScript's: isCompiledUnderOtherName) whose
 * text on disk has tags, as a hook or loader is about to run it as code: another tool's hook for a
 * name of its own compiles it as TypeScript, and lockweave, which weaves by name, never would.
 */
export function refuseUnwovenName(file: string, runtime = 'Node', otherName = isOtherCompiledName): void {
  if (otherName(file) && tagsWeaveOnDisk(file)) throw new Error(unwovenNameMessage(runtime, file));
}

/**
 * Throws when a load hook may have compiled `file` as code under a name no route weaves: another
 * compiled name (`.svc`, a package's too) whose text on disk has tags, or a data name (`.sql`,
 * `.md`) whose text is TypeScript with tagged methods (locksAsCode) — such a file runs only where a
 * hook compiles it, and a doc that mentions a tag is not refused.
 */
export function refuseHookedName(file: string): void {
  refuseUnwovenName(file, 'Node', hasOtherCompiledName);
  if (hasDataName(file) && locksAsCode(file)) throw new Error(unwovenNameMessage('Node', file));
}

/**
 * True when `handed` — the text a tool handed on for `file`, woven into code that locks `locked` —
 * lost a tagged method of the file on disk. A copy equal to the file costs one read; a different
 * one (another plugin ran first) is checked site by site.
 */
export function lostTags(file: string, handed: string, locked: readonly string[]): boolean {
  const onDisk = readText(file);
  if (onDisk === undefined || onDisk === handed) return false;
  const wanted = locksOnDisk(file, onDisk);
  return wanted !== undefined && (wanted.errors || !holdsEvery(locked, wanted.sites));
}

/** True when `locked` has each of `wanted`, counted: two methods of one site need two locks. */
export function holdsEvery(locked: readonly string[], wanted: readonly string[]): boolean {
  const left = new Map<string, number>();
  for (const site of locked) left.set(site, (left.get(site) ?? 0) + 1);
  return wanted.every((site) => {
    const count = left.get(site) ?? 0;
    left.set(site, count - 1);
    return count > 0;
  });
}

/** The file's text, or undefined for one that is not there (virtual, removed): nothing on disk could have been lost. */
export function readText(file: string): string | undefined {
  try {
    return readDisk(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * True when a file under another name holds, read as TypeScript, methods with tags, or tags with
 * errors in text that is code (it compiles without a syntax error). Not the tag text alone, as for
 * TypeScript names: a raw-text transformer's template or doc that merely mentions a tag is data,
 * and its tag errors (a tag beside prose) say nothing of code.
 */
export function locksAsCode(file: string): boolean {
  const text = readText(file);
  if (text === undefined) return false; // gone: nothing can load it either
  const locks = locksOnDisk(file, text);
  if (locks === undefined) return false;
  if (locks.sites.length > 0) return true;
  // Loaded here, not at the top: the routes' warm start never gets this far.
  const tsApi = (require('../typescript') as typeof import('../typescript')).ownTypeScript();
  const { diagnostics = [] } = tsApi.transpileModule(text, { fileName: file, reportDiagnostics: true });
  return !diagnostics.some((diagnostic) => diagnostic.category === tsApi.DiagnosticCategory.Error);
}
