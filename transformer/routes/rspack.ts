// lockweave/rspack — the bundler plugin (unplugin.ts) in rspack's form:
//
// rspack.config.js: const lockweave = require('lockweave/rspack');  plugins: [lockweave()]
// (its loader runs before builtin:swc-loader: enforce 'pre').
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/rspack')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
// biome-ignore syntax/correctness/noTypeOnlyImportAttributes: TypeScript allows resolution-mode here (Biome issue 5564).
import type { RspackPluginInstance } from '@rspack/core' with { 'resolution-mode': 'import' };
import { lockweaveUnplugin, type LockweaveBundlerOptions } from './unplugin';

const plugin = (options?: LockweaveBundlerOptions): RspackPluginInstance => lockweaveUnplugin().rspack(options);
export = Object.assign(plugin, { default: plugin });
