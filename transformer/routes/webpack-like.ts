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
// The rule goes last: of the 'pre' loaders, both tools run the last rule's first, so lockweave's
// loader is handed the file as it is on disk — a user's 'pre' loader that drops comments (and the
// tags with them) runs after the weave, not before. A rule a later plugin adds after ours would
// run first again: the loader refuses text without the tags its file holds on disk
// (webpack-loader.ts), so such a build fails instead of bundling the methods unlocked.
//
// And a module built without lockweave's loader at all — a later plugin that rewrote the rules
// without ours, an inline `!!loader!./file.ts` request (it skips every configured rule) — is found
// once the modules are built: one whose file on disk has tags fails the compilation before
// anything is emitted (an error thrown there stops it; one merely reported would still be emitted
// outside production mode).
import * as fs from 'node:fs';
import { mayHoldTag } from '../parse/find-tags';
import { isWeavable, strippedError, type LockweaveBundlerOptions } from './bundler-hooks';
import { tagsWeaveOnDisk } from './tags-on-disk';

/** The loader, resolved as this file is (dist's .js, or the source's .ts where TypeScript runs it). */
const LOADER = require.resolve('./webpack-loader');

/** What webpack and rspack hand a rule's `use` function. */
interface RuleData {
  readonly resource?: string;
  readonly resourceQuery?: string;
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

/** A module as finishModules hands it: a NormalModule has a resource (with its query) and its loaders. */
interface BuiltModule {
  readonly resource?: unknown;
  readonly loaders?: readonly { readonly loader?: unknown }[];
}

export function webpackLikePlugin(options: LockweaveBundlerOptions | undefined) {
  const loaderOptions: LockweaveBundlerOptions = options?.tsconfig === undefined ? {} : { tsconfig: options.tsconfig };
  return {
    name: 'lockweave',
    apply(compiler: WebpackLikeCompiler): void {
      compiler.options.module.rules.push({
        enforce: 'pre',
        use: (data: RuleData) => {
          if (data.resource == null) return [];
          const id = data.resource + (data.resourceQuery ?? '');
          if (!isWeavable(id) || !mayHoldTagOnDisk(data.resource)) return [];
          return [{ loader: LOADER, options: loaderOptions, ident: 'lockweave' }];
        },
      });
      compiler.hooks.compilation.tap('lockweave', (compilation) => {
        compilation.hooks.finishModules.tap('lockweave', (modules) => {
          const stripped = [...modules].filter(builtWithoutLoader).map(fileOfModule).filter(tagsWeaveOnDisk);
          if (stripped.length > 0) throw strippedError(...stripped);
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

/** A source module (isWeavable) that lockweave's loader did not see (rspack names a loader with its options: `path??ident`). */
function builtWithoutLoader(module: BuiltModule): boolean {
  return (
    typeof module.resource === 'string' &&
    isWeavable(module.resource) &&
    !module.loaders?.some((used) => typeof used.loader === 'string' && used.loader.startsWith(LOADER))
  );
}

function fileOfModule(module: BuiltModule): string {
  return String(module.resource).replace(/\?.*$/, '');
}
