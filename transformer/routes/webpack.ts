// lockweave/webpack — the bundler plugin (unplugin.ts) in webpack's form:
//
// webpack.config.js: const lockweave = require('lockweave/webpack');  plugins: [lockweave()]
// (its loader runs before ts-loader, esbuild-loader or swc-loader: enforce 'pre').
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/webpack')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
import type { WebpackPluginInstance } from 'webpack';
import { lockweaveUnplugin, type LockweaveBundlerOptions } from './unplugin';

const plugin = (options?: LockweaveBundlerOptions): WebpackPluginInstance => lockweaveUnplugin().webpack(options);
export = Object.assign(plugin, { default: plugin });
