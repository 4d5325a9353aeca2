// The one bundler plugin behind lockweave/vite, /rollup, /rolldown, /esbuild, /webpack and /rspack:
//
//   vite / vitest   plugins: [lockweave()]          rollup / rolldown   plugins: [lockweave()]
//   esbuild         plugins: [lockweave()]          webpack / rspack    plugins: [lockweave()]
//
// It hands each TypeScript file to weaveSource before the tool strips the types (enforce 'pre'),
// and returns the woven TypeScript with its source map, so the tool's own TypeScript handling
// (esbuild, oxc, swc, ts-loader) compiles the locked methods and maps them back to the source.
// A project's own JavaScript (allowJs: tspc weaves .js files too) is woven the same way; the
// JavaScript of packages (node_modules) is not looked at: they ship it built, and a look at each
// file would cost every build.
//
// One set of hooks (`lockweaveHooks`), in the form of a rollup, rolldown or vite plugin: those
// three take it as it is; esbuild and Bun get an onLoad step around the same weave (load-step.ts),
// and webpack and rspack a rule that runs the same transform as their loader (webpack-like.ts).
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
import * as path from 'node:path';
import {
  hasOtherCompiledName,
  isWovenSource,
  PACKAGE_FILE,
  SOURCE_EXTENSIONS,
} from '../../runtime/base/loaded-typescript';
import { MAY_HOLD_TAG } from '../../runtime/base/tag-text';
import { mayHoldTag } from '../parse/find-tags';
import { lostTags, refuseUnwovenName, tagsWeaveOnDisk } from './tags-on-disk';
import { weaveOptimizedDeps, type OptimizedConfig, type ViteMeta } from './vite-optimizer';
import { weaveCached } from './weave-cached';
import type { CachedWeave } from './woven-cache';
import type { SourceMapV3 } from '../weave-source';

export interface LockweaveBundlerOptions {
  /** The tsconfig whose "lockweave/transformer" plugin entry gives `prefix` and `defaults`; by default the nearest to each file. */
  readonly tsconfig?: string;
}

/** The end of a module id: the query of a vite id (`?v=…`) is not part of the file name. */
const ID_END = '(?:\\?.*)?$';
/** Source files by their id: TypeScript, and JavaScript (isWovenSource says which of it). */
const SOURCE_IDS = [
  new RegExp(`${SOURCE_EXTENSIONS.typescript}${ID_END}`),
  new RegExp(`${SOURCE_EXTENSIONS.javascript}${ID_END}`),
];
/**
 * Not code to weave: declaration files (no bodies), virtual modules (`\0…`, no file and no
 * tsconfig), and a file imported as text or as a URL (`?raw`, `?url`), whose tags are data.
 * Data exactly when vite's asset plugin loads it as data, by vite's own tests (its `rawRE` and
 * `urlRE`): `?raw=1` or `?url=1` is not one of them, and vite compiles that file as code, so it is
 * woven like any other. That query is vite's (and its plugins', under rollup and rolldown) meaning
 * only: webpack and rspack give it none, and compile `./pay.ts?raw` as code unless a rule says
 * otherwise, so their route asks the module's type instead (isWeavableFile, webpack-like.ts).
 */
const VIRTUAL = /^\0/;
const DECLARATION = new RegExp(`\\.d${SOURCE_EXTENSIONS.typescript}${ID_END}`);
const DATA = [/(\?|&)raw(?:&|$)/, /(\?|&)url(?:&|$)/];
const NOT_SOURCE = [DECLARATION, ...DATA, VIRTUAL];
/** A package's JavaScript, in the filter, so that rolldown and vite leave it out without calling JavaScript. */
const PACKAGE_JAVASCRIPT_ID = new RegExp(`${PACKAGE_FILE.source}[^?]*${SOURCE_EXTENSIONS.javascript}${ID_END}`);

/**
 * How the plugin learns of a file a plugin before it handed on without its tags:
 *   'build-end'  at the end of the build, over every module in it — the transform is then asked
 *                only for text that may hold a tag (a filter rolldown runs without calling JavaScript);
 *   'each-file'  as each file is transformed (vite's dev server and vitest, which transform on demand
 *                and have no end of a build; webpack's and rspack's loader).
 */
export type StrippedCheck = 'build-end' | 'each-file';

/**
 * The transform's filters: every TypeScript source, or only those whose text may hold a tag. A
 * virtual module is let through, so that one with tag text fails the build instead of running unlocked.
 */
// Declaration files pass the filter: one the tool compiles as code (`import './pay.d.ts'`) is refused when it holds tags.
const SOURCE_FILTER = { id: { include: SOURCE_IDS, exclude: [...DATA, PACKAGE_JAVASCRIPT_ID] } };
const TAGGED_FILTER = { ...SOURCE_FILTER, code: MAY_HOLD_TAG };

/** The plugin, as rollup, rolldown and vite take it (and webpack-like.ts runs its transform). */
export function lockweaveHooks(options: LockweaveBundlerOptions | undefined, check: StrippedCheck = 'build-end') {
  return hooksChecking(options, () => check);
}

/** The hooks, with the check the tool's mode says (read as the tool reads the filter: vite knows its mode late). */
function hooksChecking(options: LockweaveBundlerOptions | undefined, check: () => StrippedCheck) {
  /**
   * Module ids the transform was handed with tag text, in this build or one before it (watch mode
   * keeps them). By id, not file: one file imported twice (`./pay.ts`, `./pay.ts?raw=1`) is two
   * modules, and the one compiled past lockweave must not pass for the one it wove.
   */
  const handled = new Set<string>();
  return {
    name: 'lockweave',
    // Before the tool's own TypeScript handling, which drops the comments that hold the tags.
    enforce: 'pre' as const,
    transform: {
      get filter() {
        return check() === 'build-end' ? TAGGED_FILTER : SOURCE_FILTER;
      },
      handler(this: WatchContext, code: string, id: string): WovenModule | undefined {
        // A plugin's virtual module with tag text (a file loaded under a \0 id): nothing to weave it
        // by — no file, no tsconfig — and its methods would run unlocked.
        if (VIRTUAL.test(id) && mayHoldTag(code)) throw virtualError(id);
        if (DECLARATION.test(id) && mayHoldTag(code)) refuseUnwovenName(fileOf(id), 'The build', hasOtherCompiledName);
        if (!isWeavable(id)) return undefined;
        const file = fileOf(id);
        if (!mayHoldTag(code)) {
          // Handed without tag text: a file whose text on disk has tags was stripped on the way here.
          if (check() === 'each-file' && tagsWeaveOnDisk(file)) throw strippedError(file);
          return undefined; // else buildEnd looks, or (without filters: rollup < 4.38) nothing to weave
        }
        handled.add(id);
        const woven = weave(file, code, options);
        if (lostTags(file, code, woven.locked)) throw strippedError(file);
        for (const config of woven.configFiles ?? []) this.addWatchFile(config);
        for (const absent of woven.absent ?? []) this.dependsOnAbsent?.(absent);
        for (const present of woven.present ?? []) this.dependsOnPresent?.(present);
        // The weave decides, not whether it came with a map: its text is what the tool compiles.
        return woven.code === code ? undefined : { code: woven.code, map: woven.map ?? null };
      },
    },
    // The transform never saw a file handed on without tag text: every source module of the
    // build it did not handle is read once here, and one whose text on disk has tags fails the build.
    buildEnd(this: BuildContext, error?: Error): void {
      if (error || check() !== 'build-end') return;
      const stripped = [...this.getModuleIds()]
        .filter((id) => isWeavable(id) && !handled.has(id))
        .map(fileOf)
        .filter(tagsWeaveOnDisk);
      if (stripped.length > 0) this.error(strippedError(...new Set(stripped)));
    },
    // A changed file is transformed again, or not (its new text may have lost its tags on the way).
    watchChange(changed: string): void {
      const file = fileOf(changed);
      for (const id of handled) if (fileOf(id) === file) handled.delete(id);
    },
    // rollup's `cache` (a build handed the last one's) skips the transform of a module it loaded
    // unchanged: one with tag text goes through it again, so this plugin knows it wove it.
    shouldTransformCachedModule({ id, code }: { id: string; code: string }): boolean {
      return isWeavable(id) && !handled.has(id) && mayHoldTag(code);
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
  /**
   * A path whose appearing would change the settings a weave read (vite-optimizer.ts's context
   * records them; a tool's own has no such method: its watcher is not asked to watch what is not there).
   */
  dependsOnAbsent?(file: string): void;
  /** A path whose removal would (the marker of a project's root): recorded as the absent ones are. */
  dependsOnPresent?(file: string): void;
}

/** The part of a rollup-style plugin context buildEnd uses. */
interface BuildContext {
  getModuleIds(): Iterable<string>;
  error(error: Error): never;
}

/** The error of files whose tags a plugin or loader before lockweave's dropped. */
export function strippedError(...files: readonly string[]): Error {
  const [holds, it, its] = files.length > 1 ? ['hold', 'them', 'their'] : ['holds', 'it', 'its'];
  return new Error(
    `lockweave: ${files.join(', ')} ${holds} @redisLock tags, but a plugin or loader that ran before lockweave's handed ${it} on without them ` +
      `(or without some of them), or built ${it} in lockweave's place, so ${its} methods would run unlocked. lockweave must see each TypeScript file as it is on disk: ` +
      "list lockweave's plugin before that plugin (under webpack and rspack, after it: lockweave's loader then runs first), " +
      'or take TypeScript files out of what that plugin handles.',
  );
}

function virtualError(id: string): Error {
  return new Error(
    `lockweave: a plugin made the virtual module ${JSON.stringify(id)} with @redisLock tags in its text, and lockweave weaves TypeScript files as they are on disk ` +
      '(a virtual module has no file, nor a tsconfig to read the lock settings from), so its methods would run unlocked. ' +
      "Have that plugin resolve the module to its file, or list lockweave's plugin before it.",
  );
}

/**
 * vite's plugin: the hooks, checked at the build's end for `vite build` and per file for the dev
 * server and vitest. Per file until vite says it builds: a tool that read the filter before would
 * ask the transform about every file, never too few.
 */
export function vitePlugin(options: LockweaveBundlerOptions | undefined) {
  let check: StrippedCheck = 'each-file';
  return {
    ...hooksChecking(options, () => check),
    configResolved(
      this: { meta?: ViteMeta } | undefined,
      config: OptimizedConfig & { readonly command: 'build' | 'serve' },
    ): void {
      check = config.command === 'build' ? 'build-end' : 'each-file';
      // The dependency optimizer's own bundler, which vite's plugins do not reach (vite-optimizer.ts).
      weaveOptimizedDeps(config, this?.meta, () => lockweaveHooks(options));
    },
    // vite invalidates every module when a tsconfig.json is written or removed, not when a
    // tsconfig.*.json is: one written beside a woven module's config (tsconfig.build.json, with
    // another entry) must be read again, as a fresh start reads it. The configs that exist are
    // each woven module's watched files already.
    configureServer(server: DevServer): void {
      const invalidate = (file: string) => {
        if (!SIBLING_CONFIG.test(path.basename(file))) return;
        for (const environment of Object.values(server.environments ?? {})) environment.moduleGraph?.invalidateAll?.();
        server.moduleGraph?.invalidateAll?.();
      };
      server.watcher?.on?.('add', invalidate);
      server.watcher?.on?.('unlink', invalidate);
    },
    // vitest ≥ 4 caches transformed modules on disk (fsModuleCache) by the file's text and the
    // plugins' names: without this, a changed `prefix` in the tsconfig would go on locking the
    // old key. The woven text says all that the weave read (and comes from lockweave's cache).
    configureVitest(context: VitestPluginContext) {
      context.defineCacheKeyGenerator?.(({ id, sourceCode }) => {
        if (!isWeavable(id) || !mayHoldTag(sourceCode)) return undefined;
        try {
          return `lockweave:${(require('node:crypto') as typeof import('node:crypto'))
            .createHash('sha256')
            .update(weave(fileOf(id), sourceCode, options).code)
            .digest('hex')}`;
        } catch {
          return false; // a tag error: not cached, and the transform reports it
        }
      });
    },
  };
}

/** A tsconfig.*.json's name (nearest-tsconfig.ts lists them beside a tsconfig.json). */
const SIBLING_CONFIG = /^tsconfig\..+\.json$/;

/** The part of vite's dev server this plugin uses (vite is not a dependency of this module). */
interface DevServer {
  readonly watcher?: { on?(event: 'add' | 'unlink', listener: (file: string) => void): unknown };
  readonly environments?: Record<string, { readonly moduleGraph?: { invalidateAll?(): void } }>;
  readonly moduleGraph?: { invalidateAll?(): void };
}

/** The part of vitest's plugin context this plugin uses (vitest is not a dependency). */
interface VitestPluginContext {
  readonly defineCacheKeyGenerator?: (
    generate: (file: { id: string; sourceCode: string }) => string | false | undefined,
  ) => void;
}

/** The woven text of a file that may hold tags, through the woven-file cache; throws on tag errors. */
export function weave(file: string, code: string, options: LockweaveBundlerOptions | undefined): CachedWeave {
  return weaveCached(file, code, { format: formatOf(file), tsconfig: options?.tsconfig });
}

/** A module id of a file the plugin weaves (isWovenSource), not a virtual module nor one imported as data. */
export function isWeavable(id: string): boolean {
  return !NOT_SOURCE.some((pattern) => pattern.test(id)) && isWovenSource(fileOf(id));
}

/**
 * A file (a path, no query) the plugin weaves when the tool compiles it as code, whatever the query
 * it was imported with: webpack's and rspack's route, where a rule's module type, not the query,
 * says whether a module is data (webpack-like.ts).
 */
export function isWeavableFile(file: string): boolean {
  return !VIRTUAL.test(file) && isWovenSource(file);
}

/** The file of a module id: a vite id without its query (`?v=…`). */
function fileOf(id: string): string {
  return id.replace(/\?.*$/, '');
}

/**
 * `.mts`, `.mjs`, `.cts` and `.cjs` say how the runtime is imported; for the others weaveSource
 * reads the file (import/export, or require and module.exports).
 */
function formatOf(file: string): 'esm' | 'cjs' | undefined {
  if (/\.m[jt]sx?$/.test(file)) return 'esm';
  if (/\.c[jt]sx?$/.test(file)) return 'cjs';
  return undefined;
}
