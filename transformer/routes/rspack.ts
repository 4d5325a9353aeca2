// lockweave/rspack — the bundler plugin (bundler-hooks.ts) in rspack's form (webpack-like.ts):
//
// rspack.config.js: const lockweave = require('lockweave/rspack');  plugins: [lockweave()]
// (its loader runs before builtin:swc-loader: enforce 'pre').
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/rspack')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
import type { RspackPluginInstance } from '@rspack/core' with { 'resolution-mode': 'import' };
import type { LockweaveBundlerOptions } from './bundler-hooks';
import { webpackLikePlugin } from './webpack-like';

const plugin = (options?: LockweaveBundlerOptions): RspackPluginInstance =>
  webpackLikePlugin(options) as unknown as RspackPluginInstance;
export = Object.assign(plugin, { default: plugin });
