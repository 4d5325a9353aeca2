// lockweave's Bun plugin, behind lockweave/bun (bun.ts) and lockweave/bun/register (bun-register.ts).
import * as path from 'node:path';
import type { LockweaveBundlerOptions } from './bundler-hooks';
import { TYPESCRIPT_FILE } from '../../runtime/base/loaded-typescript';
import { loadWoven, strippedInputs, type LoadedTypeScript, type Metafile } from './load-step';

/** The part of Bun's plugin API this plugin uses (Bun is not a dependency). */
export interface BunPlugin {
  name: string;
  setup(build: {
    onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => LoadedTypeScript): void;
    /** Bun.build's, not the runtime's. */
    readonly config?: { metafile?: boolean; outdir?: string };
    onEnd?(callback: (result: { readonly success: boolean; readonly metafile?: Metafile }) => void): void;
  }): void;
}

/** The plugin, adding each file its onLoad reads to `loaded` (bun-register.ts hands it to the runtime's check). */
export const bunPlugin = (loaded: Set<string>, options?: LockweaveBundlerOptions): BunPlugin => ({
  name: 'lockweave',
  setup(build) {
    build.onLoad({ filter: TYPESCRIPT_FILE }, (args) => {
      loaded.add(args.path);
      return loadWoven(args.path, options, true);
    });
    const { config, onEnd } = build;
    if (!config || !onEnd) return; // Bun's runtime: no end of a build
    config.metafile = true;
    onEnd.call(build, (result) => {
      if (!result.success) return;
      // Without an outdir Bun.build wrote nothing (its outputs are in memory).
      const error = strippedInputs(
        result.metafile,
        loaded,
        process.cwd(),
        config.outdir && path.resolve(config.outdir),
      );
      if (error) throw error;
    });
  },
});
