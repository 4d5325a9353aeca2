// lockweave/bun — the weave as a Bun plugin, for Bun's runtime and its bundler:
//
//   bunfig.toml   preload = ["lockweave/bun/register"]      bun run app.ts, bun app.ts
//                 [test]
//                 preload = ["lockweave/bun/register"]      bun test
//   build.ts      await Bun.build({ entrypoints: ['src/app.ts'], outdir: 'dist', plugins: [lockweave()] })
//
// The same load step as esbuild's plugin (load-step.ts): each TypeScript file is read
// once, and a tagged one comes back woven with its map, still TypeScript for Bun to transpile.
// Bun's runtime refuses an onLoad that returns nothing, so a file without a tag comes back as it
// was read. Fail closed: a tag error throws, so `bun run` does not start, `bun test` fails the
// file and Bun.build fails, each naming the tag's file:line:col; and Bun.build, like esbuild, keeps
// a metafile so that its end finds a file a plugin listed before lockweave's loaded in its place.
//
// The options are { tsconfig?: string }, as for the bundlers: prefix and defaults come from the
// tsconfig's "lockweave/transformer" plugin entry, so Bun locks the keys tspc would.
import { bunPlugin, type BunPlugin } from './bun-plugin';
import type { LockweaveBundlerOptions } from './bundler-hooks';

const plugin = (options?: LockweaveBundlerOptions): BunPlugin => bunPlugin(new Set(), options);

export = Object.assign(plugin, { default: plugin });
