// lockweave/rollup — the bundler plugin (bundler-hooks.ts) in rollup's form:
//
// rollup.config.mjs: import lockweave from 'lockweave/rollup';  plugins: [lockweave(), esbuild()]
// (lockweave first: it must see the TypeScript before the plugin that strips the types).
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/rollup')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
import type { Plugin } from 'rollup';
import { lockweaveHooks, type LockweaveBundlerOptions } from './bundler-hooks';

const plugin = (options?: LockweaveBundlerOptions): Plugin => lockweaveHooks(options);
export = Object.assign(plugin, { default: plugin });
