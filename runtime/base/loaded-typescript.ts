// Which TypeScript files a process has already run, asked by weave-mark.ts when the process's
// entry is JavaScript: `node main.mjs` importing ./service.ts (Node's type stripping), `tsx main.js`,
// `bun main.js`, a require hook. Each drops the comments that hold the tags, and lockweave's
// runtime loads after them — too late to weave, early enough to refuse.
//
// Three sources, cheapest first, none of them trusted to be complete alone:
//   - require.cache: every file `require` compiled (Node, and every ESM module too under Bun);
//   - Node's own records: its type stripper (amaro) loads on first use, so its absence proves Node
//     stripped nothing — unless a compile cache served stripped code from an earlier run — and its
//     async hook machinery loads only when module.register added a loader;
//   - V8's list of parsed scripts (the inspector's Debugger.enable replays scriptParsed for each),
//     the only complete view of an ES module graph, asked only when the records above cannot rule
//     out an ES module compiled from TypeScript: it costs tens of milliseconds once.
// What cannot be asked is reported as such, and the caller refuses: an unknown is not a clean bill.
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The source files a build weaves, by extension (regular-expression text): TypeScript, and the
 * JavaScript of a project with `allowJs`, which tspc weaves as it weaves TypeScript. Every route
 * and check asks these two, not a list of its own.
 */
export const SOURCE_EXTENSIONS = { typescript: '\\.[cm]?tsx?', javascript: '\\.[cm]?jsx?' } as const;
/**
 * A file name a TypeScript transpiler compiles: .ts, .mts, .cts, .tsx, in any case — Bun compiles
 * `pay.TS` as TypeScript; esbuild compiles it only under a loader the build names, and Node not at
 * all (the bundler routes ask the build's own loaders, load-step.ts).
 */
export const TYPESCRIPT_FILE = new RegExp(`${SOURCE_EXTENSIONS.typescript}$`, 'i');
/** A JavaScript file name: .js, .mjs, .cjs, .jsx. */
export const JAVASCRIPT_FILE = new RegExp(`${SOURCE_EXTENSIONS.javascript}$`);
export const DECLARATION_FILE = new RegExp(`\\.d${SOURCE_EXTENSIONS.typescript}$`, 'i');
/** A JavaScript name in any letter case, as Bun takes one (`pay.JS` too); Node's own is JAVASCRIPT_FILE. */
export const JAVASCRIPT_NAME = new RegExp(`${SOURCE_EXTENSIONS.javascript}$`, 'i');
/**
 * Names no runtime compiles as code by itself: data (require's .json and .node, WebAssembly) and
 * the usual assets a require hook or a bunfig [loader] turns into text or a URL.
 */
const DATA_FILE =
  /\.(?:json5?|jsonc|node|wasm|txt|md|css|scss|sass|less|html?|svg|png|jpe?g|gif|webp|ico|ya?ml|toml|graphql|gql|sql|map)$/i;
/** A name DATA_FILE holds: code only where a hook or loader compiles it. */
export function hasDataName(file: string): boolean {
  return DATA_FILE.test(file);
}
/** Packages ship JavaScript built (woven, if at all, when they were built); a look at each would cost every build and start. */
export const PACKAGE_FILE = /[\\/]node_modules[\\/]/;

/**
 * lockweave's own code, whose comments quote the tag: the package's dist/ above this file
 * (dist/runtime/base as compiled, dist/runtime once bundled into the runtime's one file), wherever
 * a link (npm link, a workspace) puts it outside node_modules. Not found when this runs from source
 * (its own files are TypeScript then) or inside a user's bundle (no __dirname, or none under a
 * dist/): nothing is set aside then.
 */
const OWN_DIST = ((): string | undefined => {
  if (typeof __dirname !== 'string') return undefined;
  const parent = path.dirname(__dirname);
  const dist = [parent, path.dirname(parent)].find((dir) => path.basename(dir) === 'dist');
  return dist && dist + path.sep;
})();

/**
 * A file a route weaves: TypeScript wherever it lives (a workspace package, a package that ships
 * .ts), declaration files aside (no bodies); JavaScript only as a project's own source.
 */
export function isWovenSource(file: string): boolean {
  if (TYPESCRIPT_FILE.test(file)) return !DECLARATION_FILE.test(file);
  return JAVASCRIPT_FILE.test(file) && isProjectFile(file);
}

/** A file of the project's own: not a package's (node_modules), nor lockweave's own dist. */
export function isProjectFile(file: string): boolean {
  return !PACKAGE_FILE.test(file) && (OWN_DIST === undefined || !file.startsWith(OWN_DIST));
}

/**
 * A file whose code may have run compiled from a source no route wove: TypeScript by its name
 * (wherever it lives, declaration files aside), and a project file under a name that is neither
 * JavaScript nor data — what a bunfig `[loader]` compiles as TypeScript, a require hook of another
 * tool for its own extension, or Node's `require('./pay.svc')`, which runs any unknown extension as
 * JavaScript. JavaScript by name (and a file without an extension, which Node runs as JavaScript)
 * is left out: a built, woven file keeps its tag comments, so its text cannot tell.
 */
export function isCompiledSource(file: string): boolean {
  if (TYPESCRIPT_FILE.test(file) && !DECLARATION_FILE.test(file)) return true;
  return isOtherCompiledName(file);
}
const TYPE_STRIPPER = 'NativeModule internal/deps/amaro/dist/index';
const ASYNC_LOADER_HOOKS = 'NativeModule internal/modules/esm/hooks';
/** Command-line ways to add a loader; a loader added with module.registerHooks leaves no other trace. */
const LOADER_FLAG = /(^|\s)--(import|loader|experimental-loader)(=|\s|$)/;

/** TypeScript files (and other compiled names: isCompiledSource) this process has run, or `undefined` when that could not be found out. */
export function loadedTypeScript(): string[] | undefined {
  const files = requiredTypeScript();
  if ((globalThis as { Bun?: unknown }).Bun !== undefined) return files; // Bun's require.cache holds its ES modules too
  if (!mayHaveTypeScriptModules()) return files;
  const modules = parsedTypeScriptModules();
  return modules && [...new Set([...files, ...modules])];
}

function mayHaveTypeScriptModules(): boolean {
  const loaded = (process as { moduleLoadList?: unknown }).moduleLoadList;
  if (!Array.isArray(loaded)) return true;
  if (loaded.includes(TYPE_STRIPPER) || loaded.includes(ASYNC_LOADER_HOOKS)) return true;
  const strips = Boolean((process as { features: { typescript?: unknown } }).features.typescript);
  const compileCacheDir = (nodeModule as { getCompileCacheDir?: () => string | undefined }).getCompileCacheDir;
  if (strips && compileCacheDir?.() !== undefined) return true;
  return LOADER_FLAG.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
}

interface ScriptParsed {
  params: { url: string; isModule?: boolean };
}

/**
 * The files of every ES module V8 has parsed whose URL names a TypeScript file (or another compiled
 * name: a loader of another tool compiled it). Scripts a test runner compiles itself (vm, a
 * bundler's eval) are not modules and are its transform's business.
 */
function parsedTypeScriptModules(): string[] | undefined {
  let inspector: typeof import('node:inspector');
  try {
    inspector = require('node:inspector');
  } catch {
    return undefined; // a Node built without the inspector
  }
  const session = new inspector.Session();
  const files: string[] = [];
  let answered = false;
  try {
    session.connect();
    session.on('Debugger.scriptParsed', ({ params }: ScriptParsed) => {
      const file = params.isModule ? typeScriptFileOf(params.url) : undefined;
      if (file !== undefined) files.push(file);
    });
    // A session on the process's own thread answers within post(): the replay is complete here.
    session.post('Debugger.enable', (error) => {
      answered = !error;
    });
    session.post('Debugger.disable');
  } catch {
    return undefined;
  } finally {
    session.disconnect();
  }
  return answered ? files : undefined;
}

/**
 * The TypeScript files in require.cache, and the project's files under other compiled names
 * (isCompiledSource: a bunfig [loader], `require('./pay.svc')`). Bun enters its ES modules there
 * only once they have run, and a require hook of another loader compiles past Node's hooks: both
 * are seen here, late.
 */
export function requiredTypeScript(): string[] {
  return requiredFiles().filter(isCompiledSource);
}

/**
 * The source files a route weaves (isWovenSource) in require.cache — jest's registry, in a jest test
 * context — whose modules have run to their end. One still loading may not have defined its locks
 * yet: tspc's emit (lockweave/ts-jest) defines them after the module's imports, which may be woven
 * modules themselves.
 */
export function requiredSources(): string[] {
  const cache = moduleCache();
  // A declaration file's name among them ran as code all the same: judged by its tags as any other.
  return Object.keys(cache).filter(
    (file) =>
      (isWovenSource(file) || DECLARATION_FILE.test(file)) &&
      (cache[file] as { loaded?: unknown } | undefined)?.loaded !== false,
  );
}

function requiredFiles(): string[] {
  return Object.keys(moduleCache());
}

function moduleCache(): NodeJS.Dict<unknown> {
  // A CommonJS module that an ES module imports gets a require without .cache (Node 22): the
  // cache itself is the module system's.
  return require.cache ?? (nodeModule as { _cache?: NodeJS.Dict<unknown> })._cache ?? {};
}

/**
 * Calls `check` with each TypeScript file Node's loader loads from now on (import and require,
 * Node's stripping and loaders that hook in with module.registerHooks, which run after this one),
 * before the file runs. Node before 22.15 has no module.registerHooks: nothing is called there.
 * `atCompile`: a route weaves CommonJS modules as `require` compiles them (ts-node's require hook
 * compiles after Node's load hooks ran): a file `require` loads as CommonJS is checked then, once
 * every require hook had its turn, just before it runs.
 */
export function checkLaterTypeScript(check: (file: string) => void, atCompile: boolean): void {
  // Wrapped now, not at the first such file: a require hook in the way of pirates takes the
  // module's _compile as it starts a require, before the load hook runs, and would call the one
  // found then. And a hook of another tool for a name of its own (`require.extensions['.svc']`)
  // compiles past every load hook, straight into _compile: such a file is checked there.
  const waiting = checkAtCompile(check);
  const awaiting = atCompile ? waiting : undefined;
  const registerHooks = (nodeModule as Partial<typeof nodeModule>).registerHooks;
  if (registerHooks === undefined) return;
  registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      const file = typeScriptFileOf(url);
      if (file === undefined) return loaded;
      if (
        awaiting !== undefined &&
        context.conditions?.includes('require') &&
        !ES_MODULE_FORMAT.test(String(loaded.format))
      ) {
        awaiting.add(file);
      } else {
        check(file);
      }
      return loaded;
    },
  });
}

/** Node's module formats for an ES module (`module`, `module-typescript`); anything else `require` loads compiles as CommonJS. */
const ES_MODULE_FORMAT = /^module/;

interface CommonJsModule {
  load(this: CommonJsModule, filename: string, ...rest: unknown[]): unknown;
  _compile(this: CommonJsModule, content: string, filename: string, ...rest: unknown[]): unknown;
}

/** Files whose check waits for their compile; Module's _compile and load wrapped (once) to run it. */
let awaitingCompile: Set<string> | undefined;

function checkAtCompile(check: (file: string) => void): Set<string> {
  if (awaitingCompile) return awaitingCompile;
  const waiting = new Set<string>();
  const prototype = (nodeModule as unknown as { Module: { prototype: CommonJsModule } }).Module.prototype;
  const compile = prototype._compile;
  prototype._compile = function (content, filename, ...rest) {
    if (waiting.delete(filename) || isCompiledUnderOtherName(filename)) check(filename);
    return compile.call(this, content, filename, ...rest);
  };
  // A file still awaiting its check as its load ends was compiled by a _compile other than the
  // wrapped one (a hook that kept Node's own from before the wrap): its top level has run, but its
  // exports have not reached the module that required it, nor has anything called its methods.
  // A name no route weaves needs no compile to be judged: it is checked before any handler runs,
  // so a hook with a kept _compile never runs its top level (which may call a tagged method).
  const load = prototype.load;
  prototype.load = function (filename, ...rest) {
    if (isRunUnderOtherName(filename)) check(filename);
    const loaded = load.call(this, filename, ...rest);
    if (waiting.delete(filename)) check(filename);
    return loaded;
  };
  awaitingCompile = waiting;
  return waiting;
}

/**
 * A project file compiled as code under a name that is neither TypeScript, JavaScript (as Node
 * names it: `pay.JS` is not) nor data (isCompiledSource).
 */
export function isOtherCompiledName(file: string): boolean {
  return hasOtherCompiledName(file) && isProjectFile(file);
}

/**
 * A file, a package's too, under a name that is neither TypeScript, JavaScript (as Node names it)
 * nor data: what a load hook hands Node as code only when it compiled it (lockweave/register's
 * hooks judge a package's `.svc` as a project's, since the hook that compiles it does not care where it is).
 */
export function hasOtherCompiledName(file: string): boolean {
  return isCompiledUnderOtherName(file) && !DATA_FILE.test(file);
}

/**
 * A file Module's _compile runs as code under a name with an extension that is neither TypeScript
 * nor JavaScript as Node names them: `pay.svc`, `notes.md` (a require of it runs it as JavaScript,
 * a require hook may compile it), `pay.JS`, a package's as much as the project's. Whatever the name
 * says of it, it is code now, and no route wove it.
 */
export function isCompiledUnderOtherName(file: string): boolean {
  return (
    typeof file === 'string' &&
    path.isAbsolute(file) &&
    path.extname(file) !== '' &&
    !isTypeScriptSource(file) &&
    !JAVASCRIPT_FILE.test(file)
  );
}

/**
 * TypeScript a route weaves by its name: not a declaration file's name (`pay.d.ts`), which no route
 * weaves and tsc builds nothing of — yet Node, tsx and esbuild run the code such a file holds, so
 * where one runs it is judged as a file under another name is.
 */
function isTypeScriptSource(file: string): boolean {
  return TYPESCRIPT_FILE.test(file) && !DECLARATION_FILE.test(file);
}

/**
 * A file `require` is about to load that will run as code under another name
 * (isCompiledUnderOtherName): any but the names Node reads with handlers of its own that compile
 * nothing — `.json` and `.node`, spelled so (Node's handlers are found case-sensitively; `pay.JSON`
 * runs as JavaScript).
 */
export function isRunUnderOtherName(file: string): boolean {
  return isCompiledUnderOtherName(file) && !NODE_DATA_FILE.test(file);
}

const NODE_DATA_FILE = /\.(?:json|node)$/;

/**
 * The TypeScript file a module URL names (its query and hash aside), or a project file under
 * another compiled name (isCompiledSource), if it names one on disk.
 */
function typeScriptFileOf(url: string): string | undefined {
  const name = url.replace(/[?#].*$/, '');
  // Most of what an app loads is JavaScript by name, told from the URL: no path made for it.
  if (!name.startsWith('file:') || JAVASCRIPT_FILE.test(name)) return undefined;
  const file = fileURLToPath(name);
  return isCompiledSource(file) ? file : undefined;
}
