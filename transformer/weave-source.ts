// The one core behind every route that is not tspc: TypeScript source in, TypeScript source out
// with every tagged method locked, a source map, and the tag errors.
//
//   bundlers              routes/bundler-hooks.ts → weaveSource → the bundler strips the types
//   Node's loader         routes/register.ts → weaveSource → Node strips the types
//   jest                  routes/jest.ts     → weaveSource → TypeScript 6 transpiles
//
// Each file is parsed on its own, without its program, so there is no type checker: the checks
// that need types are `lockweave check`'s (and tspc's), and what only types would decide is
// decided at run time (check/key-path.ts). Everything else — every contract error, every
// ignored or misspelled tag — is found here exactly as tspc finds it: the same analysis.
import * as path from 'node:path';
import type * as ts from 'typescript';
import { analyseFile } from './check/analyse';
import { formatError, locate, type LockweaveDiagnostic } from './diagnostics';
import { attributeMentions, mayHoldTag, tagMentions } from './parse/find-tags';

export { mayHoldTag };
import { readPluginOptions } from './plugin-config';
import { ownTypeScript } from './typescript';
import { weaveText } from './weave/weave-text';
import { isWoven, lockedSites, withoutHeader, wovenBindings } from './weave/woven-shape';

export interface WeaveSourceOptions {
  /** The plugin options, as in the tsconfig plugin entry. */
  readonly prefix?: unknown;
  readonly defaults?: unknown;
  /** How the runtime is imported; by default decided from the file (see moduleFormat). */
  readonly format?: 'esm' | 'cjs';
  /** Default true. */
  readonly sourceMap?: boolean;
}

export interface LockweaveError {
  readonly code: number;
  /** Starts with `@redisLock:`. */
  readonly message: string;
  readonly fileName: string;
  /** 1-based, as editors count. */
  readonly line: number;
  readonly column: number;
  /** `src/pay.ts:12:7 - error TS93010: @redisLock: ...` */
  readonly formatted: string;
}

export interface SourceMapV3 {
  version: number;
  file?: string;
  sources: string[];
  sourcesContent?: (string | null)[];
  names: string[];
  mappings: string;
}

export interface WovenSource {
  /** Still TypeScript; no line added or removed. */
  readonly code: string;
  /** Original → woven; undefined when nothing changed. */
  readonly map: SourceMapV3 | undefined;
  /** How many methods this weave locked (0: the code is the source as it came). */
  readonly woven: number;
  /**
   * The site of every tagged method the code locks: woven now, or found woven already by a route
   * before this one (woven-shape.ts decides that from the method's own syntax, never from text).
   */
  readonly locked: readonly string[];
  /** Non-empty: the route must fail (a build error, a refusal to load). */
  readonly errors: readonly LockweaveError[];
}

export class LockweaveBuildError extends Error {
  constructor(readonly errors: readonly LockweaveError[]) {
    super(
      `lockweave: ${errors.length} @redisLock error${errors.length === 1 ? '' : 's'}; no method was run without its lock:\n${errors.map((e) => `  ${e.formatted}`).join('\n')}`,
    );
    this.name = 'LockweaveBuildError';
  }
}

export function weaveSource(fileName: string, code: string, options: WeaveSourceOptions = {}): WovenSource {
  const unchanged: WovenSource = { code, map: undefined, woven: 0, locked: [], errors: [] };
  if (!mayHoldTag(code) || (tagMentions(code).length === 0 && attributeMentions(code).length === 0)) return unchanged;
  const tsApi = ownTypeScript();
  const parse = (text: string) =>
    tsApi.createSourceFile(fileName, text, tsApi.ScriptTarget.Latest, true, scriptKind(tsApi, fileName));
  const sourceFile = parse(code);
  const plugin = readPluginOptions({ prefix: options.prefix, defaults: options.defaults });
  // Text a route before this one wove (two configured at once): its tags are found with the
  // header blanked, and a method it locked is left as it is — judged by the method's own syntax
  // (woven-shape.ts), so a comment or string that looks woven changes nothing.
  const bindings = wovenBindings(tsApi, sourceFile);
  const analysis = analyseFile(
    tsApi,
    undefined,
    bindings ? parse(withoutHeader(bindings)) : sourceFile,
    plugin.defaults,
  );
  const errors = [...plugin.errors, ...analysis.errors].map(toLockweaveError);
  const locked = analysis.plans.map((plan) => plan.target.site);
  const plans = bindings ? analysis.plans.filter((plan) => !isWoven(tsApi, bindings, plan)) : analysis.plans;
  if (plans.length === 0 && analysis.refused.length === 0) return { ...unchanged, locked, errors };
  const commonJs = (options.format ?? moduleFormat(fileName, sourceFile)) === 'cjs';
  const { text, woven } = weaveText(tsApi, sourceFile, { ...analysis, plans }, commonJs);
  const map =
    options.sourceMap === false
      ? undefined
      : text.generateMap({
          source: path.basename(fileName),
          file: path.basename(fileName),
          includeContent: true,
          hires: true,
        });
  return {
    code: text.toString(),
    map: map && { ...map, sources: map.sources, names: map.names },
    woven,
    locked,
    errors,
  };
}

/** The sites of the functions a compiled file (JavaScript) locks as lockweave locks them; see woven-shape.ts. */
export function lockedSitesOf(fileName: string, code: string): string[] {
  const tsApi = ownTypeScript();
  return lockedSites(
    tsApi,
    tsApi.createSourceFile(fileName, code, tsApi.ScriptTarget.Latest, true, tsApi.ScriptKind.JS),
  );
}

export function assertNoErrors(result: WovenSource): void {
  if (result.errors.length > 0) throw new LockweaveBuildError(result.errors);
}

/**
 * ES module unless the file says CommonJS: `.cts`, or no import/export syntax while it uses
 * require/module.exports. (A route that knows the format — Node's loader does — passes it.)
 */
function moduleFormat(fileName: string, sourceFile: ts.SourceFile): 'esm' | 'cjs' {
  if (/\.c[tj]sx?$/.test(fileName)) return 'cjs';
  if (/\.m[tj]sx?$/.test(fileName)) return 'esm';
  const esmSyntax = (sourceFile as { externalModuleIndicator?: unknown }).externalModuleIndicator !== undefined;
  return !esmSyntax && /\brequire\s*\(|\bmodule\.exports\b|\bexports\.[A-Za-z_$]/.test(sourceFile.text) ? 'cjs' : 'esm';
}

function scriptKind(tsApi: typeof ts, fileName: string): ts.ScriptKind {
  if (/\.[cm]?tsx$/.test(fileName)) return tsApi.ScriptKind.TSX;
  if (/\.[cm]?jsx?$/.test(fileName)) return tsApi.ScriptKind.JS;
  return tsApi.ScriptKind.TS;
}

function toLockweaveError(error: LockweaveDiagnostic): LockweaveError {
  const { fileName, line, column } = locate(error);
  return { code: error.code, message: error.message, fileName, line, column, formatted: formatError(error) };
}
