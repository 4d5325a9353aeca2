// lockweave/bun/register — a Bun preload (bunfig.toml `preload`, and `[test] preload` for bun
// test): registers lockweave's Bun plugin (bun-plugin.ts) with Bun's runtime, so every TypeScript file
// the process loads after it is woven before Bun transpiles it, and marks the process as woven
// (runtime/base/weave-mark.ts: without the mark, a Bun process running TypeScript is refused lockweave's runtime).
// The plugin also refuses, as Bun resolves it, a tagged file that Bun's `require` would run as
// JavaScript under a name no route weaves (`require('./ledger.svc')`).
//
// Bun asks runtime plugins in the order they were registered and takes the first answer: a
// plugin that a preload listed before this one registered may load TypeScript files in
// lockweave's place. So the mark names the files lockweave's plugin loaded, and lockweave's
// runtime refuses any other TypeScript file the process ran whose text on disk has a tag.
import { assertCodeNotInFileWoven, markWeaving } from '../../runtime/base/weave-mark';
import { bunPlugin, type BunPlugin } from './bun-plugin';

interface BunRuntime {
  plugin(plugin: BunPlugin): unknown;
  build?: (config: BuildConfig, ...rest: unknown[]) => unknown;
}

interface BuildConfig {
  readonly plugins?: readonly ({ readonly name?: unknown } | null | undefined)[];
}

const bun = (globalThis as { Bun?: BunRuntime }).Bun;
if (!bun) {
  // Loud, never a no-op: under Node this preload would weave nothing.
  throw new Error(
    'lockweave/bun/register is a preload for Bun; under Node use `node --import lockweave/register`, or build with tspc',
  );
}
const loaded = new Set<string>();
bun.plugin(bunPlugin(loaded));
markWeaving(loaded);
// A build script this preload runs (`bun build.ts`) may call Bun.build without lockweave's plugin:
// Bun.build uses no runtime plugin, so it would bundle every tagged method unlocked, and the bundle,
// JavaScript, is no file a later check judges. lockweave's plugin goes first among its plugins
// (the nearest tsconfig's entry, as `plugins: [lockweave()]` reads it); one already there is left be.
const build = bun.build;
if (typeof build === 'function')
  bun.build = function (this: unknown, config: BuildConfig, ...rest: unknown[]) {
    const plugins = config?.plugins ?? [];
    if (plugins.some((plugin) => plugin?.name === 'lockweave')) return build.call(this, config, ...rest);
    return build.call(this, { ...config, plugins: [bunPlugin(new Set()), ...plugins] }, ...rest);
  };
// Code given with -e or on stdin (`bun run -`) is no file the plugin is asked for, and need not
// load the runtime: Bun hands it over as process._eval before the preloads run, checked now.
assertCodeNotInFileWoven();
