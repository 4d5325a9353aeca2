// The one bundler plugin behind lockweave/vite, /rollup, /rolldown, /esbuild, /webpack and /rspack:
//
//   vite / vitest   plugins: [lockweave()]          rollup / rolldown   plugins: [lockweave()]
//   esbuild         plugins: [lockweave()]          webpack / rspack    plugins: [lockweave()]
//
// It hands each TypeScript file to weaveSource before the tool strips the types (enforce 'pre'),
// and returns the woven TypeScript with its source map, so the tool's own TypeScript handling
// (esbuild, oxc, swc, ts-loader) compiles the locked methods and maps them back to the source.
//
// One set of hooks (`lockweaveHooks`), in the form of a rollup, rolldown or vite plugin: those
// three take it as it is; esbuild gets a plugin of its own around the same weave (below), and
// webpack and rspack a rule that runs the same transform as their loader (webpack-like.ts).
// No adapter library sits between: unplugin, which once did, cost every build ~25 ms to load.
//
// Every route locks the key tspc would: `prefix` and `defaults` come from the same tsconfig plugin
// entry (the nearest tsconfig.json, or the `tsconfig` option), never from options of their own.
//
// Fail closed: a tag error throws, so the build fails with every error's file:line:col — a bundle
// is never written with a tagged method left unlocked.
//
// Woven files are cached on disk as lockweave/register caches them (woven-cache.ts), so a rebuild
// whose tagged files did not change loads neither the weaver nor TypeScript (~200-300 ms).
// Other caches must not keep an old weave: the tsconfig chain is declared a dependency of each
// woven file (webpack's and rspack's persistent caches, watch modes), and vitest's module cache,
// keyed on the file's text and the plugin names only, is given the woven text's hash.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { MAY_HOLD_TAG } from '../../runtime/base/tag-text';
import { mayHoldTag } from '../parse/find-tags';
import { weaveCached } from './weave-cached';
import type { CachedWeave } from './woven-cache';
import type { SourceMapV3 } from '../weave-source';

export interface LockweaveBundlerOptions {
  /** The tsconfig whose "lockweave/transformer" plugin entry gives `prefix` and `defaults`; by default the nearest to each file. */
  readonly tsconfig?: string;
}

/** TypeScript sources; the query of a vite id (`?v=…`) is not part of the file name. */
const TYPESCRIPT_ID = /\.[cm]?tsx?(?:\?.*)?$/;
/**
 * Not code to weave: declaration files (no bodies), virtual modules (`\0…`, no file and no
 * tsconfig), and a file imported as text or as a URL (`?raw`, `?url`), whose tags are data.
 */
const NOT_SOURCE = [/\.d\.[cm]?tsx?(?:\?.*)?$/, /^\0/, /\?(?:.*&)?(?:raw|url)(?:&|=|$)/];

/** The plugin, as rollup, rolldown and vite take it (and webpack-like.ts runs its transform). */
export function lockweaveHooks(options: LockweaveBundlerOptions | undefined) {
  return {
    name: 'lockweave',
    // Before the tool's own TypeScript handling, which drops the comments that hold the tags.
    enforce: 'pre' as const,
    transform: {
      filter: { id: { include: TYPESCRIPT_ID, exclude: NOT_SOURCE }, code: MAY_HOLD_TAG },
      handler(this: WatchContext, code: string, id: string): WovenModule | undefined {
        // Again, for a tool that does not run hook filters (rollup < 4.38, vite < 6.3).
        if (!isWeavable(id) || !mayHoldTag(code)) return undefined;
        const woven = weave(id.replace(/\?.*$/, ''), code, options);
        for (const config of woven.configFiles ?? []) this.addWatchFile(config);
        // The weave decides, not whether it came with a map: its text is what the tool compiles.
        return woven.code === code ? undefined : { code: woven.code, map: woven.map ?? null };
      },
    },
  };
}

/** What the transform hands the tool for a file it wove. */
export interface WovenModule {
  readonly code: string;
  readonly map: SourceMapV3 | null;
}

/** The part of a rollup-style plugin context the transform uses. */
export interface WatchContext {
  addWatchFile(file: string): void;
}

/** vite's plugin: the hooks, and a cache key for vitest. */
export function vitePlugin(options: LockweaveBundlerOptions | undefined) {
  return {
    ...lockweaveHooks(options),
    // vitest ≥ 4 caches transformed modules on disk (fsModuleCache) by the file's text and the
    // plugins' names: without this, a changed `prefix` in the tsconfig would go on locking the
    // old key. The woven text says all that the weave read (and comes from lockweave's cache).
    configureVitest(context: VitestPluginContext) {
      context.defineCacheKeyGenerator?.(({ id, sourceCode }) => {
        if (!isWeavable(id) || !mayHoldTag(sourceCode)) return undefined;
        try {
          return `lockweave:${crypto
            .createHash('sha256')
            .update(weave(id.replace(/\?.*$/, ''), sourceCode, options).code)
            .digest('hex')}`;
        } catch {
          return false; // a tag error: not cached, and the transform reports it
        }
      });
    },
  };
}

/** The part of vitest's plugin context this plugin uses (vitest is not a dependency). */
interface VitestPluginContext {
  readonly defineCacheKeyGenerator?: (
    generate: (file: { id: string; sourceCode: string }) => string | false | undefined,
  ) => void;
}

/**
 * esbuild's plugin, written for esbuild directly: through unplugin it cost a plain build of 85 ms
 * another ~55 ms (loading unplugin ~25 ms, and a second read of every file in JavaScript). It
 * reads each .ts file once; a file without a tag goes back to esbuild untouched (undefined), a
 * tagged one comes back woven, with its map inline, which esbuild composes into the bundle's.
 */
export function esbuildPlugin(options: LockweaveBundlerOptions | undefined): EsbuildPlugin {
  return {
    name: 'lockweave',
    setup(build) {
      build.onLoad({ filter: TYPESCRIPT_FILE }, (args) => loadWoven(args.path, options));
    },
  };
}

/** The files esbuild's and Bun's plugins are asked to load: TypeScript by its extension. */
export const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;

export interface LoadedTypeScript {
  contents: string;
  loader: 'ts' | 'tsx';
  watchFiles: string[];
}

/**
 * What an esbuild-style onLoad returns for a TypeScript file, from one read of it: the woven text
 * with its map inline (which the tool composes into its own) when the file holds a tag; else, with
 * `asRead`, the file as it was read (Bun's runtime wants an answer for every file), without it
 * undefined (the tool loads the file as it would have).
 */
export function loadWoven(file: string, options: LockweaveBundlerOptions | undefined, asRead: true): LoadedTypeScript;
export function loadWoven(file: string, options: LockweaveBundlerOptions | undefined): LoadedTypeScript | undefined;
export function loadWoven(
  file: string,
  options: LockweaveBundlerOptions | undefined,
  asRead = false,
): LoadedTypeScript | undefined {
  const weavable = isWeavable(file);
  if (!weavable && !asRead) return undefined;
  const code = fs.readFileSync(file, 'utf8');
  if (!weavable || !mayHoldTag(code))
    return asRead ? { contents: code, loader: loaderOf(file), watchFiles: [] } : undefined;
  const woven = weave(file, code, options);
  const map =
    woven.map &&
    `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(woven.map)).toString('base64')}\n`;
  return { contents: woven.code + (map ?? ''), loader: loaderOf(file), watchFiles: [...(woven.configFiles ?? [])] };
}

function loaderOf(file: string): 'ts' | 'tsx' {
  return /\.[cm]?tsx$/.test(file) ? 'tsx' : 'ts';
}

/** The part of esbuild's plugin API this plugin uses (esbuild is not a dependency). */
interface EsbuildPlugin {
  name: string;
  setup(build: {
    onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => LoadedTypeScript | undefined): void;
  }): void;
}

/** The woven text of a file that may hold tags, through the woven-file cache; throws on tag errors. */
function weave(file: string, code: string, options: LockweaveBundlerOptions | undefined): CachedWeave {
  return weaveCached(file, code, { format: formatOf(file), tsconfig: options?.tsconfig });
}

export function isWeavable(id: string): boolean {
  return TYPESCRIPT_ID.test(id) && !NOT_SOURCE.some((pattern) => pattern.test(id));
}

/** `.mts` and `.cts` say how the runtime is imported; for `.ts` and `.tsx` weaveSource reads the file. */
function formatOf(file: string): 'esm' | 'cjs' | undefined {
  if (/\.mtsx?$/.test(file)) return 'esm';
  if (/\.ctsx?$/.test(file)) return 'cjs';
  return undefined;
}
