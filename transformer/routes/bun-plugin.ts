// lockweave's Bun plugin, behind lockweave/bun (bun.ts) and lockweave/bun/register (bun-register.ts).
//
// Bun compiles a file as TypeScript by its loader: `.ts`, `.mts`, `.cts`, `.tsx` in any case
// (`pay.TS` too), and any extension Bun.build's `loader` option or bunfig.toml's [loader] maps to
// `ts` or `tsx` (Bun's runtime: `bun -l .svc:ts` too). The plugin takes each of them (build-loaders.ts).
import * as fs from 'node:fs';
import nodeModule = require('node:module');
import * as path from 'node:path';
import { isProjectFile, JAVASCRIPT_NAME, TYPESCRIPT_FILE } from '../../runtime/base/loaded-typescript';
import { bunLoaders, bunRuntimeLoaders, type BuildLoaders, type LoaderMap, sourceKindOf } from './build-loaders';
import type { LockweaveBundlerOptions } from './bundler-hooks';
import { type LoadedTypeScript, loadWoven, type Metafile, strippedInputs } from './load-step';
import { refuseUnwovenName } from './tags-on-disk';

/**
 * A specifier whose name (its `?query` aside) ends in an extension that is neither JavaScript,
 * TypeScript, JSON nor `.node`: what may resolve to a file Bun's `require` runs as JavaScript, in any form —
 * `./pay.svc`, `./pay.svc?x`, a package.json `imports` key (`#pay.svc`), a tsconfig `paths` alias
 * (`@svc/pay.svc`), a package's file. Bun 1.4.5 asks a runtime plugin of no specifier without an
 * extension (`#pay`, `pkg`), whatever its filter.
 */
const OTHER_NAME = /\.(?![cm]?[jt]sx?(?:\?|$)|json(?:\?|$)|node(?:\?|$))[^./\\?]+(?:\?.*)?$/is;

/**
 * The names Bun 1.4.5's own loaders hand over as data, in any case (`.md` as HTML, `.txt` as text,
 * `.sh` as a path). Any other name but JavaScript's and TypeScript's — `.svc`, and `.sql`, `.svg` or
 * `.scss` too — a `require` runs as JavaScript.
 */
const BUN_DATA_NAME = /\.(?:json|jsonc|json5|toml|ya?ml|txt|text|md|markdown|html|css|xml|wasm|node|sh|sqlite)$/i;

/** The part of Bun's plugin API this plugin uses (Bun is not a dependency). */
export interface BunPlugin {
  name: string;
  setup(build: {
    onLoad(
      options: { filter: RegExp },
      /** `loader`: Bun.build's, for the file; the runtime gives none. */
      callback: (args: { path: string; loader?: string }) => LoadedFile | undefined,
    ): void;
    /** The runtime's: a callback that returns nothing leaves the file to Bun, one that throws refuses it. */
    onResolve?(options: { filter: RegExp }, callback: (args: { path: string; importer?: string }) => undefined): void;
    /** Bun.build's, not the runtime's. */
    readonly config?: { metafile?: boolean; outdir?: string; loader?: LoaderMap };
    onEnd?(callback: (result: { readonly success: boolean; readonly metafile?: Metafile }) => void): void;
  }): void;
}

/** Bun's own resolver: the file `specifier` names from `dir` (Bun.resolveSync). */
interface BunResolver {
  resolveSync(specifier: string, dir: string): string;
}

/** What the plugin's onLoad answers: a TypeScript file (woven, if tagged), or another file as it is, with the loader Bun would use. */
type LoadedFile = LoadedTypeScript | { contents: string; loader: string };

/** The plugin, adding each file its onLoad reads to `loaded` (bun-register.ts hands it to the runtime's check). */
export const bunPlugin = (loaded: Set<string>, options?: LockweaveBundlerOptions): BunPlugin => ({
  name: 'lockweave',
  setup(build) {
    const { config, onEnd } = build;
    // Bun's runtime reads its loaders from bunfig.toml and `-l`, and tells a plugin nothing of them.
    const loaders = bunLoaders(config ? config.loader : bunRuntimeLoaders());
    build.onLoad({ filter: loaders.filter }, (args) => {
      const loader = args.loader ?? loaders.loaderOf(args.path);
      if (loader !== 'ts' && loader !== 'tsx') {
        // Bun.build lets the file load as it would; the runtime wants an answer for every file its filter takes.
        return config ? undefined : { contents: fs.readFileSync(args.path, 'utf8'), loader: loader ?? 'file' };
      }
      loaded.add(args.path);
      return loadWoven(args.path, options, loader, true);
    });
    if (!config) refuseRunAsOtherName(build, loaders);
    if (!config || !onEnd) return; // Bun's runtime: no end of a build
    config.metafile = true;
    onEnd.call(build, (result) => {
      if (!result.success) return;
      // Without an outdir Bun.build wrote nothing (its outputs are in memory).
      const error = strippedInputs(
        result.metafile,
        loaded,
        (file) => sourceKindOf(file, loaders.loaderOf(file)),
        process.cwd(),
        config.outdir && path.resolve(config.outdir),
      );
      if (error) throw error;
    });
  },
});

/**
 * Bun's runtime runs a file `require` names under an unknown extension as JavaScript, asking no
 * onLoad of lockweave's: such a file is refused as it resolves, before any of it runs, when its text
 * on disk has tags. Two hooks see it resolve, each handed the file Bun's own resolver found (it knows
 * package.json `imports`, tsconfig `paths`, packages, and what plugins registered before this one
 * answer): the plugin's onResolve, for every `require`, `import` and entry point whose specifier has
 * an extension, and `Module._resolveFilename`, which Bun's `require` (and `require.resolve`) calls
 * with every specifier — `#ledger`, a package whose `main` has another name — onResolve is never asked of.
 */
function refuseRunAsOtherName(build: Parameters<BunPlugin['setup']>[0], loaders: BuildLoaders): void {
  const otherName = (file: string) => runsAsOtherName(file, loaders);
  const refuse = (specifier: string, file: string): void => {
    // Bun's answer keeps the specifier's query, which names no file.
    const query = specifier.indexOf('?');
    const named =
      query !== -1 && file.endsWith(specifier.slice(query)) ? file.slice(0, query - specifier.length) : file;
    refuseUnwovenName(named, 'Bun', otherName);
  };
  const bun = (globalThis as { Bun?: BunResolver }).Bun as BunResolver;
  let resolving = false;
  build.onResolve?.({ filter: OTHER_NAME }, (args) => {
    if (resolving) return undefined; // Bun.resolveSync asks the plugins too, this one among them
    resolving = true;
    let file: string;
    try {
      file = bun.resolveSync(args.path, args.importer ? path.dirname(args.importer) : process.cwd());
    } catch {
      return undefined; // Bun finds no file either, and says so
    } finally {
      resolving = false;
    }
    refuse(args.path, file);
    return undefined;
  });
  const Module = nodeModule.Module as unknown as { _resolveFilename(request: unknown, ...rest: unknown[]): unknown };
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (this: unknown, request, ...rest) {
    const file = resolveFilename.call(this, request, ...rest);
    if (typeof request === 'string' && typeof file === 'string') refuse(request, file);
    return file;
  };
}

/**
 * A project file Bun's `require` runs as JavaScript under a name no route weaves: by the loader
 * bunfig or `-l` gives its extension (`js`, `jsx`; `ts` is the onLoad's to weave, `text` is data), else
 * by Bun's own table (BUN_DATA_NAME). JavaScript by name is not judged so (a built, woven file keeps
 * its tag comments), nor a package's file (packages ship it built).
 */
function runsAsOtherName(file: string, loaders: BuildLoaders): boolean {
  if (!path.isAbsolute(file) || path.extname(file) === '' || TYPESCRIPT_FILE.test(file) || JAVASCRIPT_NAME.test(file))
    return false;
  const loader = loaders.loaderOf(file);
  if (loader !== undefined) return sourceKindOf(file, loader) === 'javascript';
  return !BUN_DATA_NAME.test(file) && isProjectFile(file);
}
