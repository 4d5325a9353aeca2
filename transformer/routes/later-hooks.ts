// Load hooks registered after lockweave/register's, and what may have run before it.
//
// Node runs the module.registerHooks hook registered last first, and each decides whether to call
// the next: a hook registered after lockweave's that reads a .ts file itself and short-circuits
// hands Node JavaScript that lockweave's hook never saw, its tags gone with the comments. So every
// hook registered after lockweave's (module.registerHooks is replaced for the process, the ES module
// bindings too) is wrapped: a weavable file it loaded without lockweave's hook being reached for it
// in that same load, and whose text on disk has tags, throws before it runs.
//
// A hook registered with the function taken before lockweave/register loaded (a preload that ran
// first kept it) is not wrapped, and a module loaded before lockweave/register was (an entry that
// imports it among its other imports) never met its hook: for those V8 is asked which TypeScript
// modules ran (runtime/base/weave-mark.ts) — by register as it loads, and by the runtime as it loads.
// That costs a start tens of milliseconds, so it is skipped when lockweave/register is the process's
// first preload: nothing can have run before its hook.
import nodeModule = require('node:module');
import { fileURLToPath } from 'node:url';
import { isWovenSource, JAVASCRIPT_FILE, PACKAGE_FILE } from '../../runtime/base/loaded-typescript';
import { refuseHookedName, tagsWeaveOnDisk } from './tags-on-disk';

interface LoadResult {
  format?: string | null;
  source?: string | ArrayBuffer | NodeJS.TypedArray | null;
  shortCircuit?: boolean;
}
export type NextLoad = (url: string, context?: unknown) => LoadResult;
export type LoadHook = (url: string, context: unknown, nextLoad: NextLoad) => LoadResult;
type RegisterHooks = (hooks: { load?: LoadHook; resolve?: unknown }) => unknown;

/**
 * The file a module URL names (its query and hash aside), if it names one a route may weave or
 * refuse: not a package's JavaScript, told from the URL (most of what an app loads) without the
 * cost of making its path.
 */
export function fileOfUrl(url: string): string | undefined {
  if (!url.startsWith('file:')) return undefined;
  const name = url.replace(/[?#].*$/, '');
  return PACKAGE_FILE.test(name) && JAVASCRIPT_FILE.test(name) ? undefined : fileURLToPath(name);
}

/** Loads under way in wrapped hooks (synchronous, so nested as a stack): the file, and whether lockweave's hook was reached for it. */
const underWay: { file: string; reached: boolean }[] = [];

/** Called by lockweave's own load hook for each weavable file it is handed. */
export function noteReached(file: string): void {
  for (const load of underWay) if (load.file === file) load.reached = true;
}

/** Wraps the load hook of every module.registerHooks call from now on (see above). */
export function watchLaterHooks(): void {
  const registerHooks = (nodeModule as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks !== 'function') return;
  const wrapped: RegisterHooks = function (this: unknown, hooks) {
    const load = hooks?.load;
    if (typeof load !== 'function') return registerHooks.call(this, hooks);
    return registerHooks.call(this, { ...hooks, load: checkedLoad(load) });
  };
  (nodeModule as { registerHooks?: RegisterHooks }).registerHooks = wrapped;
  // `import { registerHooks } from 'node:module'` in modules loaded from now on, and the live
  // bindings of those loaded before, see the wrapped function too.
  nodeModule.syncBuiltinESMExports();
}

function checkedLoad(load: LoadHook): LoadHook {
  return function (this: unknown, url, context, nextLoad) {
    const file = fileOfUrl(url);
    if (file === undefined || !isWovenSource(file)) {
      const loaded = load.call(this, url, context, nextLoad);
      // This hook may have compiled a name of its own (`.svc`, a package's too) without calling lockweave's.
      if (file !== undefined) refuseHookedName(file);
      return loaded;
    }
    const visit = { file, reached: false };
    underWay.push(visit);
    let loaded: LoadResult;
    try {
      loaded = load.call(this, url, context, nextLoad);
    } finally {
      underWay.splice(underWay.lastIndexOf(visit), 1);
    }
    if (!visit.reached && tagsWeaveOnDisk(file)) throw bypassedError(file);
    return loaded;
  };
}

function bypassedError(file: string): Error {
  return new Error(
    `lockweave/register: ${file} holds @${'redisLock'} tags, but a load hook registered after lockweave/register ` +
      '(module.registerHooks: Node runs the hook registered last first) loaded it without handing it to lockweave, ' +
      'so its methods would run unlocked. Register that hook before lockweave/register ' +
      '(`node --import ./your-hooks.mjs --import lockweave/register app.ts`), or have it call nextLoad for TypeScript ' +
      'files and compile the text it returns, as tsx does.',
  );
}

/** Node's preload flags: each names a module that runs before the entry. */
const PRELOAD_FLAG = /^(-r|--require|--import|--loader|--experimental-loader)(?:=(.*))?$/;

/**
 * True when this file is the process's first preload (`--import lockweave/register` or `--require`,
 * on the command line or in NODE_OPTIONS): nothing ran before it that could have loaded TypeScript
 * or kept module.registerHooks unwrapped, and the preloads after it meet the wrapped one. Node runs
 * every `--require` (NODE_OPTIONS' first) before every `--import`. A `--loader` runs its hooks off
 * the main thread, in an order of its own: with one, the answer is false, as for anything unclear
 * (the runtime then asks V8).
 */
export function firstPreload(ownFile: string): boolean {
  const words = [...(process.env.NODE_OPTIONS ?? '').split(/\s+/), ...process.execArgv].filter(Boolean);
  const preloads = preloadsOf(words);
  if (preloads.some(({ flag }) => flag === '--loader' || flag === '--experimental-loader')) return false;
  const requires = preloads.filter(({ flag }) => flag !== '--import');
  const imports = preloads.filter(({ flag }) => flag === '--import');
  const first = [...requires, ...imports][0];
  return first !== undefined && resolvesTo(first.specifier, ownFile);
}

/** Each preload flag of `words` (Node's command-line options) and the module it names, in order. */
export function preloadsOf(words: readonly string[]): { flag: string; specifier: string }[] {
  const preloads: { flag: string; specifier: string }[] = [];
  for (let i = 0; i < words.length; i++) {
    const flag = PRELOAD_FLAG.exec(words[i]);
    if (!flag) continue;
    const specifier = (flag[2] ?? words[++i] ?? '').replace(/^(['"])(.*)\1$/, '$2');
    preloads.push({ flag: flag[1], specifier });
  }
  return preloads;
}

/** True when `specifier`, resolved from the working directory, is `file`. */
export function resolvesTo(specifier: string, file: string): boolean {
  try {
    return (
      require.resolve(specifier.startsWith('file:') ? fileURLToPath(specifier) : specifier, {
        paths: [process.cwd()],
      }) === file
    );
  } catch {
    return false;
  }
}
