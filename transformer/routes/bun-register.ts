// lockweave/bun/register — a Bun preload (bunfig.toml `preload`, and `[test] preload` for bun
// test): registers lockweave's Bun plugin (bun.ts) with Bun's runtime, so every TypeScript file
// the process loads after it is woven before Bun transpiles it, and marks the process as woven
// (runtime/base/weave-mark.ts: without the mark, a Bun process running TypeScript is refused lockweave's runtime).
import { markWeaving } from '../../runtime/base/weave-mark';
import lockweave = require('./bun');

interface BunRuntime {
  plugin(plugin: ReturnType<typeof lockweave>): unknown;
}

const bun = (globalThis as { Bun?: BunRuntime }).Bun;
if (!bun) {
  // Loud, never a no-op: under Node this preload would weave nothing.
  throw new Error(
    'lockweave/bun/register is a preload for Bun; under Node use `node --import lockweave/register`, or build with tspc',
  );
}
bun.plugin(lockweave());
markWeaving();
