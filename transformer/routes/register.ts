// lockweave/register — weaves TypeScript as Node loads it:
//
//   node --import lockweave/register app.ts                 (Node's own type stripping)
//   node --import lockweave/register --import tsx app.ts    (tsx: lockweave FIRST)
//
// And a project's own JavaScript (allowJs: tspc weaves .js files too), outside node_modules:
// the same tag locks the same key whichever extension its file has.
//
// One synchronous load hook (module.registerHooks, in the loading thread) serves `import` and
// Node's own `require`. It hands the woven file on still as TypeScript, in the format Node
// reported, so whatever strips types next (Node, or tsx's hook registered after ours) strips the
// woven text. `require` through another loader's handler is register-require.ts's part.
//
// A disk cache of woven files (woven-cache.ts) spares a start whose tagged files did not change
// the cost of loading TypeScript's parser.
//
// Fail closed, at load time: a tag error throws, so the process refuses to start rather than run
// a method without its lock; and a file whose tags another loader stripped before we saw it (tsx
// registered before us hands us JavaScript without comments) throws too, naming the fix.
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isWovenSource } from '../../runtime/base/loaded-typescript';
import { assertCodeNotInFileWoven, assertTypeScriptWoven, markWeaving } from '../../runtime/base/weave-mark';
import { mayHoldTag } from '../parse/find-tags';
import { fileOfUrl, firstPreload, type LoadHook, noteReached, watchLaterHooks } from './later-hooks';
import { weaveChildren } from './register-children';
import { cancelWovenRead, noteHandedOn, weaveRequiredTypeScript } from './register-require';
import { lostTags, refuseHookedName, tagsWeaveOnDisk } from './tags-on-disk';
import { weaveCached } from './weave-cached';
import type { CachedWeave } from './woven-cache';

type RegisterHooks = (hooks: { load: LoadHook }) => unknown;
type LoadResult = ReturnType<LoadHook>;

const registerHooks = (nodeModule as { registerHooks?: RegisterHooks }).registerHooks;
if (typeof registerHooks !== 'function') {
  // Loud, never a no-op: a preload that did nothing would run every tagged method unlocked.
  throw new Error(
    `lockweave/register needs Node >= 22.15 (or >= 23.5) for module.registerHooks; this is Node ${process.version}. ` +
      'Upgrade Node, or build with tspc (the "lockweave/transformer" tsconfig plugin) and run the emitted JavaScript.',
  );
}

/**
 * Files this process wove or found tag-free as they ran; any other TypeScript file with tags was
 * loaded past us. The load hook adds what it hands on (an ES module runs that); a compile through
 * `require` adds its file once the text compiled is found to be what lockweave handed on, or locked
 * (register-require.ts) — never because a read was answered with woven text.
 */
const handled = new Set<string>();

registerHooks({
  load(url, context, nextLoad) {
    const file = fileOfUrl(url);
    if (file === undefined || !isWovenSource(file)) {
      // A hook registered after this one may compile a name no route weaves (`.svc`, a package's too) as code.
      if (file !== undefined) refuseHookedName(file);
      return nextLoad(url, context);
    }
    noteReached(file);
    cancelWovenRead(file);
    const loaded = nextLoad(url, context);
    if (loaded.source == null) return loaded;
    const source =
      typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source as Uint8Array).toString('utf8');
    const required =
      (context as { conditions?: readonly string[] } | undefined)?.conditions?.includes('require') === true;
    if (!mayHoldTag(source)) {
      // Whatever the format, a loader before us may have handed on the file without its comments
      // (a TypeScript-to-TypeScript rewrite too): what is on disk decides. One read of an untagged
      // file is the price of never running a tagged one unlocked.
      if (tagsWeaveOnDisk(file)) throw strippedError(file);
      return handOn(file, source, loaded, source, required);
    }
    const woven = weave(file, source, moduleFormat(loaded.format));
    // A copy that kept some tags and lost others (a loader before us dropped some comments).
    if (lostTags(file, source, woven.locked)) throw strippedError(file);
    // The weave decides: its text is what runs (the source itself when nothing was to lock).
    if (!woven.map || !(process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled)
      return handOn(file, source, loaded, woven.code, required);
    // Weaving keeps every line where it was; the map fixes the columns of the woven lines for
    // --enable-source-maps (and costs a base64 pass and a longer text to strip, so only then).
    // Type stripping keeps comments and positions, so the map stays valid.
    const map = { ...woven.map, sources: [pathToFileURL(file).href] };
    const inline = `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
    return handOn(file, source, loaded, woven.code + inline, required);
  },
});

/**
 * The load's result with `text` as its source. A CommonJS file is compiled next, and that compile
 * is checked against `text` (a handler wrapped around Node's may compile something else); one
 * `require` loads must reach Module's _compile for that, and is refused as its load ends if it ran
 * without (register-require.ts). Node 22 compiles a CommonJS module `import` loads without _compile,
 * from the text the hook returns.
 */
function handOn(file: string, source: string, loaded: LoadResult, text: string, required: boolean): LoadResult {
  handled.add(file);
  if (loaded.format === 'commonjs' || loaded.format === 'commonjs-typescript')
    noteHandedOn(file, source, text, required);
  return text === source ? loaded : { ...loaded, source: text };
}

// A hook registered after ours runs first and may never call ours: each is checked (later-hooks.ts).
watchLaterHooks();
// A worker thread or forked process given options of its own loads lockweave/register too.
weaveChildren(__filename);

// This process's TypeScript is woven from here on (runtime/base/weave-mark.ts): the runtime checks
// the TypeScript that ran against the files the hook handled, unless nothing could have passed it.
const seesEveryFile = firstPreload(__filename);
markWeaving(handled, () => seesEveryFile);
// And now, not only when the runtime loads: an entry that imports lockweave/register beside a tagged
// module had it loaded before this hook, and that module, unwoven, may never load the runtime. Code
// given with -e, -p or on stdin passes no hook, first preload or not, and need not load it either.
if (seesEveryFile) assertCodeNotInFileWoven();
else assertTypeScriptWoven();

weaveRequiredTypeScript({
  handled,
  isWeavable: isWovenSource,
  weave: (file, source) =>
    mayHoldTag(source) ? weave(file, source, undefined) : { code: source, map: undefined, locked: [] },
  strippedError,
});

/** The woven text of a file that may hold tags (the source itself when nothing is locked); throws on tag errors. */
function weave(file: string, source: string, format: 'esm' | 'cjs' | undefined): CachedWeave {
  return weaveCached(file, source, { format, tsconfig: tsxTsconfig() });
}

/**
 * Node says which module system a file is (`module-typescript`, `commonjs-typescript` for a .ts
 * file; `module`, `commonjs` for a .js one, by its extension and package.json "type", or another
 * loader that already made a .ts file JavaScript but kept the tag comments); the runtime import
 * must match it. Anything else (tsx's .tsx): weaveSource decides from the file.
 */
function moduleFormat(format: string | null | undefined): 'esm' | 'cjs' | undefined {
  if (format === 'module' || format === 'module-typescript') return 'esm';
  if (format === 'commonjs' || format === 'commonjs-typescript') return 'cjs';
  return undefined;
}

function strippedError(file: string): Error {
  return new Error(
    `lockweave/register: ${file} holds @redisLock tags, but another loader turned it into JavaScript without them ` +
      '(or without a lock lockweave can confirm on each tagged method) before lockweave saw it, so its methods would run unlocked. ' +
      'Load lockweave/register BEFORE the other loader: ' +
      '`node --import lockweave/register --import tsx app.ts` (not the reverse; with the tsx command: ' +
      '`NODE_OPTIONS="--import lockweave/register" tsx app.ts`). A loader that reads files its own way cannot be woven: ' +
      'build with tspc or a lockweave bundler plugin instead.',
  );
}

/**
 * The tsconfig tsx was told to compile with (`tsx --tsconfig <file>`, which sets this variable for
 * the process it runs): its plugin entry is the one tspc is run with then, not the nearest's.
 */
function tsxTsconfig(): string | undefined {
  const named = process.env.TSX_TSCONFIG_PATH;
  return named ? path.resolve(named) : undefined;
}
