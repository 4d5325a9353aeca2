// Under Bun, TypeScript runs through Bun's own transpiler, which drops the tags with the comments:
// a tagged method there runs unlocked unless lockweave's Bun plugin wove the file first (the
// preload lockweave/bun/register). The preload leaves a mark on the process. A Bun process whose
// entry is TypeScript and that has no mark is refused when it loads lockweave's runtime — which an
// app that configures its locks, or a woven method, always does — because the tagged methods of
// that entry and of everything it imports would run without their locks. The refusal's fix (the
// preload) is harmless for a project without tags, so it is never a reason to run unlocked.

/** Set on globalThis by lockweave/bun/register once Bun weaves the TypeScript this process loads. */
export const BUN_WEAVES: unique symbol = Symbol.for('lockweave.bunWeaves');

interface BunGlobal {
  readonly Bun?: { readonly main?: unknown };
  [BUN_WEAVES]?: unknown;
}

export function assertBunWeaves(): void {
  const global = globalThis as BunGlobal;
  if (global.Bun === undefined || global[BUN_WEAVES] === true) return;
  const main = global.Bun.main;
  if (typeof main !== 'string' || !/\.[cm]?tsx?$/.test(main)) return;
  throw new Error(
    `lockweave: Bun is running TypeScript (${main.split(/[\\/]/).pop()}) without lockweave's Bun plugin, so its tagged methods would run unlocked. ` +
      'Add to bunfig.toml: preload = ["lockweave/bun/register"] (for bun run) and, under [test], preload = ["lockweave/bun/register"] (for bun test); ' +
      'or build with `lockweave build` (or tspc) and run the JavaScript it writes.',
  );
}
