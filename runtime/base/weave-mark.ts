// A process whose entry is a TypeScript file runs that file — and what it imports — through a
// transpiler: Node's type stripping, tsx, ts-node, Bun. Each drops the comments that hold the tags,
// so a tagged method there runs unlocked unless a lockweave route wove the files first:
// lockweave/register (Node's loader), lockweave/bun/register (Bun's preload), or the tsconfig
// transformer inside the process (ts-node with ts-patch's compiler). Each of those leaves a mark on
// the process. A process with a TypeScript entry and no mark is refused when it loads lockweave's
// runtime — which an app that configures its locks, or a woven method, always does — naming the
// fix. The fix is harmless for a project without tags, so the refusal is never a reason to run
// unlocked. A process whose entry is JavaScript (built by tspc, lockweave build or a bundler
// plugin; a test runner's) is not looked at: what it runs was woven before, or by its runner.

/** Set on globalThis by a route that weaves the TypeScript this process loads. */
const WEAVES: unique symbol = Symbol.for('lockweave.weavesTypeScript');

/** Called by each in-process route when it is loaded. */
export function markWeaving(): void {
  (globalThis as Record<symbol, unknown>)[WEAVES] = true;
}

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;

export function assertTypeScriptWoven(): void {
  if ((globalThis as Record<symbol, unknown>)[WEAVES] === true) return;
  const bun = (globalThis as { Bun?: { main?: unknown } }).Bun;
  const entry = bun ? bun.main : process.argv[1];
  if (typeof entry !== 'string' || !TYPESCRIPT_FILE.test(entry)) return;
  const file = entry.split(/[\\/]/).pop();
  throw new Error(
    bun
      ? `lockweave: Bun is running TypeScript (${file}) without lockweave's Bun plugin, so its tagged methods would run unlocked. ` +
          'Add to bunfig.toml: preload = ["lockweave/bun/register"] (for bun run) and, under [test], preload = ["lockweave/bun/register"] (for bun test); ' +
          'or build with `lockweave build` (or tspc) and run the JavaScript it writes.'
      : `lockweave: Node is running TypeScript (${file}) without a lockweave route, so its tagged methods would run unlocked. ` +
          `Start it with \`node --import lockweave/register ${file}\` (with tsx: \`node --import lockweave/register --import tsx ${file}\`; ` +
          'ts-node: "compiler": "ts-patch/compiler" with the plugin entry); or build with `lockweave build` (or tspc) and run the JavaScript it writes.',
  );
}
