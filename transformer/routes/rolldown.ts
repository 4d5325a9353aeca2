// lockweave/rolldown — the bundler plugin (bundler-hooks.ts) in rolldown's form:
//
// rolldown.config.mjs: import lockweave from 'lockweave/rolldown';  plugins: [lockweave()]
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/rolldown')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
import type { Plugin } from 'rolldown' with { 'resolution-mode': 'import' };
import { lockweaveHooks, type LockweaveBundlerOptions } from './bundler-hooks';

const plugin = (options?: LockweaveBundlerOptions): Plugin => lockweaveHooks(options);
export = Object.assign(plugin, { default: plugin });
