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
// Code given with -e or on stdin (`bun run -`) is no file the plugin is asked for, and need not
// load the runtime: Bun hands it over as process._eval before the preloads run, checked now.
assertCodeNotInFileWoven();
