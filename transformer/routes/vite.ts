// lockweave/vite — the bundler plugin (bundler-hooks.ts) in vite's form:
//
// vite.config.mts:   import lockweave from 'lockweave/vite';  export default { plugins: [lockweave()] }
// vitest takes the same plugin (vitest.config.mts, or the vite config it shares).
//
// The options are { tsconfig?: string }. The package is CommonJS: `export =` makes
// `require('lockweave/vite')` the plugin factory itself, and its `default` the same factory, so
// an ES module's default import, TypeScript's, and `.default` all find it.
import type { Plugin } from 'vite' with { 'resolution-mode': 'import' };
import { vitePlugin, type LockweaveBundlerOptions } from './bundler-hooks';

const plugin = (options?: LockweaveBundlerOptions): Plugin => vitePlugin(options);
export = Object.assign(plugin, { default: plugin });
