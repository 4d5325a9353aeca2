// lockweave/webpack and /rspack: the bundler hooks (bundler-hooks.ts) as one rule, run before every
// other loader (enforce 'pre', put last), whose loader (webpack-loader.ts) is their transform.
//
// Written for the two tools directly: through unplugin they cost each build ~25 ms to load it,
// and the next loader (ts-loader, swc) got the woven text without the weave's map.
//
// webpack and rspack call a rule's loader for every file the rule takes, whatever its text, and a
// loader call costs more than a look at the file (in rspack, a call from Rust into JavaScript): so
// the rule takes only source files (TypeScript, the project's own JavaScript) whose text on disk
// may hold a tag. A file that cannot be read is taken.
//
// Code or data is what the tool makes of the module, not its query: webpack and rspack give
// `?raw` or `?url` no meaning of their own (that is vite's convention), and their TypeScript
// loader compiles `./pay.ts?url` as it compiles `./pay.ts`. So the rule takes a source file
// whatever its query, and the module's type decides: one a rule made an asset (`type:
// 'asset/source'`, `'asset/resource'`, …) is data, its text handed on as it is, tags and all;
// any other type is code, woven or the build fails.
//
// The rule goes last: of the 'pre' loaders, both tools run the last rule's first, so lockweave's
// loader is handed the file as it is on disk — a user's 'pre' loader that drops comments (and the
// tags with them) runs after the weave, not before. A rule a later plugin adds after ours would
// run first again: the loader refuses text without the tags its file holds on disk
// (webpack-loader.ts), so such a build fails instead of bundling the methods unlocked.
//
// And a module built without lockweave's loader at all — a later plugin that rewrote the rules
// without ours, an inline `!!loader!./file.ts` request (it skips every configured rule) — is found
// once the modules are built: one that is code (not an asset), whatever its query, whose file on
// disk has tags fails the compilation before anything is emitted (an error thrown there stops it;
// one merely reported would still be emitted outside production mode).
//
// The rule takes files by name, and a TypeScript loader may compile others: ts-loader's
// `appendTsSuffixTo: [/\.svc$/]`, swc-loader or builtin:swc-loader under a rule for `.svc`. A
// project module under any other name that the build made code (not an asset, JSON, CSS or
// WebAssembly) whose file on disk has tags fails the compilation there too, naming the rename:
// lockweave weaves a file as its name says it is written.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isProjectFile } from '../../runtime/base/loaded-typescript';
import { mayHoldTag } from '../parse/find-tags';
import { isWeavableFile, strippedError, type LockweaveBundlerOptions } from './bundler-hooks';
import { tagsWeaveOnDisk } from './tags-on-disk';

/** The loader, resolved as this file is (dist's .js, or the source's .ts where TypeScript runs it). */
const LOADER = require.resolve('./webpack-loader');

/** What webpack and rspack hand a rule's `use` function: the file, its query apart (`resourceQuery`). */
interface RuleData {
  readonly resource?: string;
}

/** The part of webpack's and rspack's compiler the plugin touches. */
interface WebpackLikeCompiler {
  readonly options: { readonly module: { readonly rules: unknown[] } };
  readonly hooks: {
    readonly compilation: Hook<[{ readonly hooks: { readonly finishModules: Hook<[Iterable<BuiltModule>]> } }]>;
  };
}

interface Hook<Args extends unknown[]> {
  tap(name: string, callback: (...args: Args) => void): void;
}

/**
 * A module as finishModules hands it: a NormalModule has a resource (with its query and fragment),
 * the file it resolved to, its loaders, and its type (a loader's `this._module` is the same module).
 */
interface BuiltModule extends TypedModule {
  readonly resource?: unknown;
  readonly resourceResolveData?: { readonly path?: unknown };
  readonly loaders?: readonly { readonly loader?: unknown }[];
}

/** A module's type, as webpack and rspack say it: `javascript/auto`, `asset/source`, … */
export interface TypedModule {
  readonly type?: unknown;
}

export function webpackLikePlugin(options: LockweaveBundlerOptions | undefined) {
  const loaderOptions: LockweaveBundlerOptions = options?.tsconfig === undefined ? {} : { tsconfig: options.tsconfig };
  return {
    name: 'lockweave',
    apply(compiler: WebpackLikeCompiler): void {
      compiler.options.module.rules.push({
        enforce: 'pre',
        use: (data: RuleData) => {
          // Whatever the query: the rules' module type is not known yet, the loader reads it.
          if (data.resource == null || !isWeavableFile(data.resource) || !mayHoldTagOnDisk(data.resource)) return [];
          return [{ loader: LOADER, options: loaderOptions, ident: 'lockweave' }];
        },
      });
      compiler.hooks.compilation.tap('lockweave', (compilation) => {
        compilation.hooks.finishModules.tap('lockweave', (modules) => {
          const built = [...modules];
          const stripped = built.filter(builtWithoutLoader).map(fileOfModule).filter(tagsWeaveOnDisk);
          if (stripped.length > 0) throw strippedError(...stripped);
          const misnamed = built.filter(codeUnderOtherName).map(fileOfModule).filter(tagsWeaveOnDisk);
          if (misnamed.length > 0) throw misnamedError([...new Set(misnamed)]);
        });
      });
    },
  };
}

function mayHoldTagOnDisk(file: string): boolean {
  try {
    return mayHoldTag(fs.readFileSync(file, 'utf8'));
  } catch {
    return true;
  }
}

/**
 * True for a module the rules made data: an asset (`asset`, `asset/source`, `asset/resource`,
 * `asset/inline`), whose text is the file's, not code that runs. Any other type, or none known,
 * is code: a tagged file compiled without the weave would run its methods unlocked.
 */
export function isDataModule(module: TypedModule | undefined): boolean {
  return typeof module?.type === 'string' && /^asset(?:\/|$)/.test(module.type);
}

/**
 * A source module built as code (not an asset), whatever its query, that lockweave's loader did
 * not see (rspack names a loader with its options: `path??ident`).
 */
function builtWithoutLoader(module: BuiltModule): boolean {
  return (
    typeof module.resource === 'string' &&
    isWeavableFile(fileOfModule(module)) &&
    !isDataModule(module) &&
    !module.loaders?.some((used) => typeof used.loader === 'string' && used.loader.startsWith(LOADER))
  );
}

/**
 * A project module the build made code (webpack's and rspack's `javascript/*` types, or one not
 * known to be data) from a file whose name lockweave does not weave: a loader compiled it by a
 * rule of its own.
 */
function codeUnderOtherName(module: BuiltModule): boolean {
  if (typeof module.resource !== 'string' || isDataModule(module) || DATA_TYPE.test(String(module.type))) return false;
  const file = fileOfModule(module);
  return path.isAbsolute(file) && !isWeavableFile(file) && isProjectFile(file);
}

/** Module types whose text is data to the tools: JSON, CSS, WebAssembly (assets: isDataModule). */
const DATA_TYPE = /^(?:json|css|webassembly)(?:\/|$)/;

/** The error of tagged project files compiled as code under names lockweave does not weave. */
function misnamedError(files: readonly string[]): Error {
  const [holds, them, their] = files.length > 1 ? ['hold', 'them', 'their'] : ['holds', 'it', 'its'];
  return new Error(
    `lockweave: ${files.join(', ')} ${holds} @${'redisLock'} tags, and the build compiles ${them} as code (a loader's rule for ${their} name: ` +
      "ts-loader's appendTsSuffixTo, swc-loader, …), but lockweave's plugin weaves files by name (.ts, .mts, .cts, .tsx, and the " +
      `project's .js, .mjs, .cjs, .jsx), so ${their} methods would run unlocked. Rename ${them} to .ts (or .mts, .cts, .tsx).`,
  );
}

/** The module's file: the path it resolved to, or its resource without the query and fragment. */
function fileOfModule(module: BuiltModule): string {
  const resolved = module.resourceResolveData?.path;
  return typeof resolved === 'string' ? resolved : String(module.resource).replace(/[?#].*$/, '');
}
