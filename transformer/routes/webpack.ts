// lockweave/webpack — the bundler plugin (bundler-hooks.ts) in webpack's form (webpack-like.ts):
//
// webpack.config.js: const lockweave = require('lockweave/webpack');  plugins: [lockweave()]
// (its loader runs before ts-loader, esbuild-loader or swc-loader: enforce 'pre').
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/webpack')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
import type { WebpackPluginInstance } from 'webpack';
import type { LockweaveBundlerOptions } from './bundler-hooks';
import { webpackLikePlugin } from './webpack-like';

const plugin = (options?: LockweaveBundlerOptions): WebpackPluginInstance =>
  webpackLikePlugin(options) as unknown as WebpackPluginInstance;
export = Object.assign(plugin, { default: plugin });
