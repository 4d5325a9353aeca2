// lockweave/webpack and /rspack: the bundler hooks (bundler-hooks.ts) as one rule, put first and
// run before every other loader (enforce 'pre'), whose loader (webpack-loader.ts) is their transform.
//
// Written for the two tools directly: through unplugin they cost each build ~25 ms to load it,
// and the next loader (ts-loader, swc) got the woven text without the weave's map.
//
// webpack and rspack call a rule's loader for every file the rule takes, whatever its text, and a
// loader call costs more than a look at the file (in rspack, a call from Rust into JavaScript): so
// the rule takes only TypeScript files whose text on disk may hold a tag. A file that cannot be
// read is taken.
//
// The rule goes last: of the 'pre' loaders, both tools run the last rule's first, so lockweave's
// loader is handed the file as it is on disk — a user's 'pre' loader that drops comments (and the
// tags with them) runs after the weave, not before. A rule a later plugin adds after ours would
// run first again: the loader refuses text without the tags its file holds on disk
// (webpack-loader.ts), so such a build fails instead of bundling the methods unlocked.
import * as fs from 'node:fs';
import { mayHoldTag } from '../parse/find-tags';
import { isWeavable, type LockweaveBundlerOptions } from './bundler-hooks';

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
    },
  };
}

export function mayHoldTagOnDisk(file: string): boolean {
  try {
    return mayHoldTag(fs.readFileSync(file, 'utf8'));
  } catch {
    return true;
  }
}
