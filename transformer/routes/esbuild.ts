// lockweave/esbuild — the bundler plugin's onLoad step (load-step.ts) in esbuild's form:
//
// build.mjs: import lockweave from 'lockweave/esbuild';
//            await esbuild.build({ ..., plugins: [lockweave()] })   (before other plugins that load .ts)
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/esbuild')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
import type { Plugin } from 'esbuild';
import type { LockweaveBundlerOptions } from './bundler-hooks';
import { esbuildPlugin } from './load-step';

const plugin = (options?: LockweaveBundlerOptions): Plugin => esbuildPlugin(options) as Plugin;
export = Object.assign(plugin, { default: plugin });
