// lockweave's Bun plugin, behind lockweave/bun (bun.ts) and lockweave/bun/register (bun-register.ts).
//
// Bun compiles a file as TypeScript by its loader: `.ts`, `.mts`, `.cts`, `.tsx` in any case
// (`pay.TS` too), and any extension Bun.build's `loader` option or bunfig.toml's [loader] maps to
// `ts` or `tsx` (Bun's runtime: `bun -l .svc:ts` too). The plugin takes each of them (build-loaders.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bunLoaders, bunRuntimeLoaders, type LoaderMap, sourceKindOf } from './build-loaders';
import type { LockweaveBundlerOptions } from './bundler-hooks';
import { type LoadedTypeScript, loadWoven, type Metafile, strippedInputs } from './load-step';
import { refuseUnwovenName } from './tags-on-disk';

/** Loaders that compile TypeScript: lockweave's onLoad weaves what they load. */
const TYPESCRIPT_LOADER = /^tsx?$/;

/**
 * A relative or absolute specifier whose name ends in an extension that is neither JavaScript,
 * TypeScript nor JSON: what `require('./pay.svc')` names, which Bun's runtime runs as JavaScript.
 */
const OTHER_NAME = /^[./].*\.(?![cm]?[jt]sx?$|json$|node$)[^./\\]+$/i;

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
    // Bun's runtime runs a file `require` names under an unknown extension as JavaScript, asking no
    // onLoad of lockweave's: refused as it resolves when its text on disk has tags (its loader's
    // onLoad weaves a name bunfig or `-l` maps to TypeScript).
    if (!config)
      build.onResolve?.({ filter: OTHER_NAME }, (args) => {
        const file = path.resolve(args.importer ? path.dirname(args.importer) : process.cwd(), args.path);
        if (!TYPESCRIPT_LOADER.test(loaders.loaderOf(file) ?? '')) refuseUnwovenName(file, 'Bun');
        return undefined;
      });
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
