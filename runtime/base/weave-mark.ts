// A process whose entry is a TypeScript file runs that file — and what it imports — through a
// transpiler: Node's type stripping, tsx, ts-node, Bun. Each drops the comments that hold the tags,
// so a tagged method there runs unlocked unless a lockweave route wove the files first:
// lockweave/register (Node's loader), lockweave/bun/register (Bun's preload), or the tsconfig
// transformer inside the process (ts-node with ts-patch's compiler). Each of those leaves a mark on
// the process. A process with a TypeScript entry and no mark is refused when it loads lockweave's
// runtime — which an app that configures its locks, or a woven method, always does — naming the
// fix. The fix is harmless for a project without tags, so the refusal is never a reason to run
// unlocked. A process whose entry is JavaScript (built by tspc, lockweave build or a bundler
// plugin) may still have run TypeScript it imported — `node main.mjs` importing ./service.ts —
// so without a mark it is refused too if a TypeScript file it ran holds a tag on disk
// (loaded-typescript.ts finds them; an untagged file has nothing to lock).
//
// jest is the one runner whose entry says nothing: its worker runs each test file in a vm context
// and transforms what the file imports with the transformers of its config, loaded into the
// worker before any test runs. A jest worker running a TypeScript test file (or one it cannot
// name) is refused unless lockweave/jest or lockweave/ts-jest is among them. Their mark cannot be
// a global — the test's globalThis is not the transformer's — so it is a subscriber on a named
// diagnostics channel, the one registry every context of a process shares. ts-patch's compiler
// handed to ts-jest does not count: ts-jest skips it in isolatedModules mode with a Node module
// kind, and on a warm jest cache nothing of it runs, so its mark would come and go between runs.
import * as diagnosticsChannel from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import {
  TYPESCRIPT_FILE,
  checkLaterTypeScript,
  loadedTypeScript,
  requiredSources,
  requiredTypeScript,
} from './loaded-typescript';
import { taggedSites } from './tagged-sites';
import { MAY_NAME_TAG } from './tag-text';

/**
 * Set on globalThis by each route that weaves the TypeScript this process loads: the files it wove.
 * No route sees every file for sure. Bun's runtime asks its plugins in the order they were
 * registered and takes the first answer: a plugin an earlier preload registered may load
 * TypeScript files in lockweave's place. Node runs the load hook registered last first: one
 * registered after lockweave/register's may load a file without calling it, and a module loaded
 * before lockweave/register was never met its hook. ts-node compiles only the files its scope and
 * ignore settings leave it, and hands the rest to Node, which strips their types. A list: two
 * routes may weave in one process (ts-node beside lockweave/register), each its own files.
 */
const WEAVES: unique symbol = Symbol.for('lockweave.weavesTypeScript');

/** What a route leaves on the process. */
interface WovenFiles {
  /** The files the route wove or found without tags. */
  readonly files: ReadonlySet<string>;
  /** True when nothing can have loaded TypeScript past the route unseen: the check of what ran is skipped. */
  readonly seesEveryFile?: () => boolean;
  /**
   * The route weaves a CommonJS module as `require` compiles it (ts-node's require hook), which is
   * after Node's load hooks ran: such a module is checked as it compiles, not as it loads.
   */
  readonly weavesAtCompile?: boolean;
}

/** Called by each in-process route when it is loaded, with the files it weaves (a set it fills as it goes). */
export function markWeaving(woven: ReadonlySet<string>, seesEveryFile?: () => boolean): void {
  addMark({ files: woven, seesEveryFile });
}

/**
 * Called by lockweave's transformer inside a process that compiles TypeScript as it runs it
 * (ts-node with ts-patch's compiler), with the files it was handed: any other TypeScript that ran
 * — a file outside ts-node's scope, or one it ignores, which Node strips itself — is checked.
 */
export function markCompileWeaving(woven: ReadonlySet<string>): void {
  addMark({ files: woven, weavesAtCompile: true });
}

function addMark(mark: WovenFiles): void {
  const marks = marksOf();
  // A route marks as often as it is set up (each program the transformer is handed): once per set.
  if (marks.some((own) => own.files === mark.files)) return;
  (globalThis as Record<symbol, unknown>)[WEAVES] = [...marks, mark];
}

const JEST_TRANSFORM_CHANNEL = 'lockweave:jest-transform';

/** Asked on the channel by the runtime in a test context, answered by the transformer in the worker's. */
interface JestHandedQuery {
  readonly file: string;
  /** Only a transformer that knows which files it was handed may answer (not ts-jest's vouch). */
  readonly strict: boolean;
  handed: boolean;
}

/**
 * Called by lockweave/jest and lockweave/ts-jest when jest loads them into a worker. jest loads
 * every transformer of its config, and one whose pattern comes first takes the files it matches:
 * lockweave/jest says which files jest handed it (`handed`); ts-jest, which compiles nothing on a
 * warm jest cache, cannot say, and vouches for all but a strict question.
 */
export function markJestWeaving(handed?: (file: string) => boolean): void {
  diagnosticsChannel.subscribe(JEST_TRANSFORM_CHANNEL, (message) => {
    const query = message as JestHandedQuery;
    if (handed ? handed(query.file) : !query.strict) query.handed = true;
  });
}

/** True when a lockweave transformer in this worker was handed `file` (`strict`: and knows it). */
function handedToLockweave(file: string, strict = false): boolean {
  const query: JestHandedQuery = { file, strict, handed: false };
  diagnosticsChannel.channel(JEST_TRANSFORM_CHANNEL).publish(query);
  return query.handed;
}

/** Modules of this jest test context that defined locks as they loaded, with how many locks they defined at each site. */
const definedSitesIn = new Map<string, Map<string, number>>();

/**
 * Called by defineLock(), which woven code calls at the top of the module as it loads, once per
 * tagged method with its site: in a jest test context, the module calling (`definer`'s caller)
 * defined that site (see assertJestModulesWoven). Not asked elsewhere: reading the stack costs
 * microseconds, once per tagged method.
 */
export function noteDefiningModule(definer: (...args: never[]) => unknown, site: unknown, businessFlag: unknown): void {
  if (!inJestEnvironment()) return;
  const file = callerFile(definer);
  if (file !== undefined && typeof site === 'string' && typeof businessFlag === 'string') {
    let sites = definedSitesIn.get(file);
    if (!sites) definedSitesIn.set(file, (sites = new Map()));
    const defined = siteLock(site, businessFlag);
    sites.set(defined, (sites.get(defined) ?? 0) + 1);
  }
  assertJestModulesWoven();
}

/** A lock as the proof of a tagged method counts it: at its site, on its business's keys. */
const siteLock = (site: string, businessFlag: string): string => `${site}\n${businessFlag}`;

/**
 * True when the module of `file` defined, as it loaded, a lock for every method its tags on disk
 * stand on, under the exact site the transformer writes for it and the businessFlag its tag names —
 * what woven code does. A lock defined by hand (defineLock() is public) under any other site vouches
 * for no tagged method (one that merely ends with the method's name included), nor one at the site
 * on another business's keys; two tagged methods of one site need two locks; a tag whose site or
 * businessFlag cannot be read exactly from the text is not shown woven.
 */
function definedEveryTaggedSite(file: string, text: string): boolean {
  const defined = definedSitesIn.get(file);
  if (!defined) return false;
  const needed = new Map<string, number>();
  for (const { site, businessFlags } of taggedSites(text, JSX_FILE.test(file))) {
    if (site === undefined || businessFlags === undefined) return false;
    for (const flag of businessFlags) needed.set(siteLock(site, flag), (needed.get(siteLock(site, flag)) ?? 0) + 1);
  }
  return [...needed].every(([lock, count]) => (defined.get(lock) ?? 0) >= count);
}

/** JSX text is no JavaScript: its sites are not read. */
const JSX_FILE = /\.[jt]sx$/i;

/** The file of the code that called `callee`, from V8's structured stack. */
function callerFile(callee: (...args: never[]) => unknown): string | undefined {
  const original = Error.prepareStackTrace;
  try {
    Error.prepareStackTrace = (_error, frames) => frames;
    const holder: { stack?: NodeJS.CallSite[] } = {};
    Error.captureStackTrace(holder, callee);
    const frames = holder.stack;
    return Array.isArray(frames) ? (frames[0]?.getFileName() ?? undefined) : undefined;
  } catch {
    return undefined;
  } finally {
    Error.prepareStackTrace = original;
  }
}

/** jest's environments keep its own Promise under this name in each test context (jest-util's installCommonGlobals). */
function inJestEnvironment(): boolean {
  return Symbol.for('jest-native-promise') in globalThis;
}

/** The test file jest runs, from the expect state jest-circus sets before it loads the file. */
function jestTestPath(): string | undefined {
  const matchers = (globalThis as Record<symbol, { state?: { testPath?: unknown } } | undefined>)[
    Symbol.for('$$jest-matchers-object')
  ];
  const testPath = matchers?.state?.testPath;
  return typeof testPath === 'string' ? testPath : undefined;
}

function assertJestWoven(): void {
  const testPath = jestTestPath();
  if (testPath !== undefined && !TYPESCRIPT_FILE.test(testPath)) return;
  // With a lockweave transformer in the worker: a test file jest has already compiled (it is in
  // jest's registry once jest starts loading it, before it runs) must have been handed to it. From a
  // setup file, before the test file is compiled, there is nothing to ask yet.
  if (
    diagnosticsChannel.hasSubscribers(JEST_TRANSFORM_CHANNEL) &&
    (testPath === undefined || !requiredTypeScript().includes(testPath) || handedToLockweave(testPath))
  ) {
    checkOnceImportsLoaded();
    return assertJestModulesWoven();
  }
  const file = testPath === undefined ? 'a setup file' : testPath.split(/[\\/]/).pop();
  throw new Error(
    `lockweave: jest is running TypeScript (${file}) without a lockweave transformer, so its tagged methods would run unlocked. ` +
      "In the jest config: transform: { '^.+\\\\.tsx?$': 'lockweave/jest' }, or keep ts-jest and give it " +
      "astTransformers: { before: ['lockweave/ts-jest'] } (ts-patch's compiler alone is not enough: ts-jest skips it in isolatedModules mode).",
  );
}

/** What jest-circus keeps of the test file it runs (its state, on each test context's globalThis). */
interface CircusState {
  readonly hasStarted?: boolean;
  readonly currentlyRunningTest?: unknown;
}

/**
 * While jest still collects the test file, a beforeAll hook: it runs once the file's imports have
 * loaded, the ones after the runtime too — an unwoven tagged method calls nothing of lockweave that
 * could ask later — and an afterAll hook, for what the tests imported as they ran (the file fails,
 * late but loudly). Not once tests run (jest would fail the test that added them): checked as it goes then.
 */
function checkOnceImportsLoaded(): void {
  // jest-circus keys its state by a Symbol of its own (not Symbol.for): found by its description.
  const key = Object.getOwnPropertySymbols(globalThis).find((symbol) => symbol.description === 'JEST_STATE_SYMBOL');
  const state = key && (globalThis as Record<symbol, CircusState | undefined>)[key];
  const { beforeAll, afterAll } = globalThis as { beforeAll?: unknown; afterAll?: unknown };
  if (!state || state.hasStarted || state.currentlyRunningTest) return;
  if (typeof beforeAll !== 'function' || typeof afterAll !== 'function') return;
  beforeAll(() => assertJestModulesWoven());
  afterAll(() => assertJestModulesWoven());
}

/** Files of jest's registry found woven or without tags: asked once each. */
const jestModulesSeen = new Set<string>();

/**
 * In a jest test context with a lockweave transformer: every module jest loaded whose JSDoc holds
 * a tag — TypeScript, or a project's own JavaScript (allowJs: tspc weaves it, and a `tsx?` pattern
 * hands it elsewhere) — must be woven — it defined a lock for each tagged method as it loaded (noteDefiningModule), or was
 * handed to lockweave/jest. The test file is not all: a config whose patterns give lockweave the
 * tests and another transformer the code they import — from outside the rootDir too, where the
 * transformer's own look at the config does not reach (routes/jest-routing.ts) — or a second jest
 * project sharing the worker, leaves that code's methods unlocked. jest loads modules with no hook
 * to ask, so this runs when the runtime loads, as each woven module loads, and when the runtime
 * makes its store for the first lock (api/configure.ts), by which time the test file's imports
 * have loaded. Elsewhere it does nothing.
 */
export function assertJestModulesWoven(): void {
  if (!inJestEnvironment() || !diagnosticsChannel.hasSubscribers(JEST_TRANSFORM_CHANNEL)) return;
  const file = requiredSources().find((loaded) => {
    if (jestModulesSeen.has(loaded) || handedToLockweave(loaded, true)) return false;
    const text = readText(loaded);
    if (text === undefined) return true; // unreadable: what it held cannot be shown harmless
    if (TAG_IN_JSDOC.test(text) && !definedEveryTaggedSite(loaded, text)) return true;
    jestModulesSeen.add(loaded);
    return false;
  });
  if (file === undefined) return;
  // A tagged JavaScript file (allowJs) needs a pattern that takes JavaScript too.
  const [kind, pattern] = TYPESCRIPT_FILE.test(file)
    ? ['TypeScript file', "'^.+\\\\.tsx?$'"]
    : ['TypeScript and JavaScript file', "'^.+\\\\.[jt]sx?$'"];
  throw new Error(
    `lockweave: jest gave ${file}, which holds @${'redisLock'} tags, to a transformer other than lockweave's, so its tagged methods would run unlocked. ` +
      `Let lockweave/jest's pattern take every ${kind} (transform: { ${pattern}: 'lockweave/jest' }), ` +
      "or give the ts-jest that takes it astTransformers: { before: ['lockweave/ts-jest'] }.",
  );
}

export function assertTypeScriptWoven(): void {
  if (inJestEnvironment()) return assertJestWoven();
  assertCodeNotInFileWoven();
  const marks = marksOf();
  const bunGlobal = (globalThis as { Bun?: { main?: unknown } }).Bun;
  const bun = bunGlobal !== undefined;
  const entry = bunGlobal ? bunGlobal.main : process.argv[1];
  const file = typeof entry === 'string' ? entry.split(/[\\/]/).pop() : undefined;
  // A route that sees every file weaves those named TypeScript (and the project's JavaScript):
  // code under another name (`require('./pay.svc')`) passes its hook unwoven, and is checked.
  if (marks.some((mark) => mark.seesEveryFile?.() === true)) return assertImportsWoven(bun, file ?? 'the entry', true);
  // A route that wove some files: every other TypeScript file that ran, the entry too, is checked.
  if (marks.length > 0 || typeof entry !== 'string' || !TYPESCRIPT_FILE.test(entry))
    return assertImportsWoven(bun, file ?? 'the entry');
  throw new Error(
    bun
      ? `lockweave: Bun is running TypeScript (${file}) without lockweave's Bun plugin, so its tagged methods would run unlocked. ${howToWeave(bun, file)}`
      : `lockweave: Node is running TypeScript (${file}) without a lockweave route, so its tagged methods would run unlocked. ${howToWeave(bun, file)}`,
  );
}

/** tsx's command starts Node with this preload (not `node --import tsx`). */
const TSX_COMMAND = /[\\/]tsx[\\/]dist[\\/]preflight\.c?js$/;
/** ts-node's commands add their script to execArgv, for child processes. */
const TS_NODE_COMMAND = /[\\/]ts-node[\\/]dist[\\/]bin[\w-]*\.js$/;
const EVAL_FLAG = /^(?:-e|-p|-pe|-ep|--eval|--print)(?:=|$)/;
/** The files ts-node compiles code given with -e, on stdin or in its REPL as (under its working directory). */
const TS_NODE_CODE_IN_MEMORY = /[\\/](?:\[eval\]|\[stdin\]|<repl>)\.ts$/;

/**
 * Code given on the command line (-e, -p) or on stdin is no file: it passes no load hook, and no
 * route weaves it — not lockweave/register, even when it is the first preload. Node strips the
 * types of such TypeScript (--input-type=module-typescript, or by itself when the code does not
 * parse as JavaScript) and keeps its comments, tags and all: refused when the text holds a tag.
 * tsx's command compiles -e code and its REPL's lines with esbuild, which drops the comments:
 * what they held cannot be shown, so refused. ts-node compiles such code as a file of its own
 * ([eval].ts), woven only when lockweave's transformer was handed it. JavaScript given so without
 * a tag runs: nothing in it is locked.
 */
function assertMainCodeWoven(): void {
  const refused = unwovenMainCode();
  if (refused !== undefined) refuseMainCode(refused);
}

/**
 * Code not in a file, checked now and when it is handed over: asked by the runtime as it loads and
 * by lockweave/register as it loads, whatever else either checks. No load hook sees such code, so a
 * register that sees every file sees none of it, and that code need not load the runtime.
 */
export function assertCodeNotInFileWoven(): void {
  assertMainCodeWoven();
  checkMainCodeWhenGiven();
}

/**
 * Called when the runtime makes a store for the first lock (api/configure.ts): the questions asked
 * as it loaded, asked again now that their answers are in. The runtime may load before the code it
 * serves is known — a preload (`-r`, NODE_OPTIONS) runs before Node reads stdin, and before
 * ts-node adds its command to execArgv — and by a first lock that code is running. Once per store,
 * not per lock.
 */
export function assertWovenAtFirstLock(): void {
  if (inJestEnvironment()) return assertJestModulesWoven();
  assertMainCodeWoven();
}

function refuseMainCode(refused: string): never {
  throw new Error(
    `lockweave: ${refused}, so any tagged method there would run unlocked: code that is not in a file passes no loader. ` +
      'Write the code to a file and start it with a route: `node --import lockweave/register app.ts` ' +
      '(tsx: `NODE_OPTIONS="--import lockweave/register" tsx app.ts`; ts-node: "compiler": "ts-patch/compiler" with the plugin entry), ' +
      'or build with `lockweave build` (or tspc) and run the JavaScript it writes.',
  );
}

/** Why the code this process was given in place of an entry file may hold unwoven tags, if it may. */
function unwovenMainCode(): string | undefined {
  const execArgv = process.execArgv;
  const code = (process as { _eval?: unknown })._eval;
  const byTsx = execArgv.some((arg) => TSX_COMMAND.test(arg));
  const evalFlag = execArgv.some((arg) => EVAL_FLAG.test(arg));
  if (typeof code === 'string') {
    if (byTsx && evalFlag)
      return 'tsx compiled the code given with -e or -p and dropped its comments, with any tag in them';
    if (MAY_NAME_TAG.test(code))
      return `the code given with -e, -p or on stdin holds @${'redisLock'} tags, and no route weaves it`;
    return undefined;
  }
  if (process.argv[1] === undefined && byTsx) return "tsx's REPL compiles what is typed and drops its comments";
  if ((evalFlag || process.argv[1] === undefined) && execArgv.some((arg) => TS_NODE_COMMAND.test(arg))) {
    const woven = marksOf().some((mark) => [...mark.files].some((file) => TS_NODE_CODE_IN_MEMORY.test(file)));
    if (!woven) return TS_NODE_UNWOVEN;
  }
  return undefined;
}

/**
 * A preload runs before the code a process is given in place of a file is known, and that code
 * need not load the runtime again, nor call it: an unwoven tagged method there calls nothing of
 * lockweave. So the runtime waits for the moment the code is handed over and checks it then,
 * before it runs:
 * - Node reads stdin once every preload ran, then stores the text as process._eval and runs it (22,
 *   24 and 26): the property is set through a setter of ours, which refuses a tagged text. (Code
 *   given with -e is stored before the preloads run, and was checked above.)
 * - ts-node registers its compiler service as process[ts-node.register.instance] before it runs
 *   `-r` preloads (after those of NODE_OPTIONS), and compiles code given with -e, on stdin or in its
 *   REPL with that service's compile() before it runs it: after each such compile, a tagged text
 *   its weave was not handed (lockweave's transformer marks what it was handed) is refused.
 */
function checkMainCodeWhenGiven(): void {
  const scriptless = process.argv[1] === undefined || process.argv[1] === '-';
  if (scriptless && !Object.hasOwn(process, NODE_EVAL_CODE)) {
    let given: unknown;
    Object.defineProperty(process, NODE_EVAL_CODE, {
      configurable: true,
      enumerable: true,
      get: () => given,
      set(code: unknown) {
        given = code;
        assertMainCodeWoven();
      },
    });
  }
  const registered = (process as unknown as Record<symbol, unknown>)[TS_NODE_SERVICE];
  if (registered !== undefined) return checkTsNodeCompiles(registered);
  if (Object.hasOwn(process, TS_NODE_SERVICE)) return;
  let service: unknown;
  Object.defineProperty(process, TS_NODE_SERVICE, {
    configurable: true,
    enumerable: false,
    get: () => service,
    set(value: unknown) {
      service = value;
      checkTsNodeCompiles(value);
    },
  });
}

/** Why ts-node's code not in a file is refused: the same whenever it is asked. */
const TS_NODE_UNWOVEN =
  "ts-node compiled the code given with -e, -p, on stdin or in its REPL without lockweave's transformer";
/** Where Node keeps code given with -e or on stdin. */
const NODE_EVAL_CODE = '_eval';
/** Where ts-node keeps the compiler service it registered (its REGISTER_INSTANCE). */
const TS_NODE_SERVICE = Symbol.for('ts-node.register.instance');
/** On a ts-node service whose compile() is checked: once per service. */
const COMPILES_CHECKED = Symbol.for('lockweave.tsNodeCompilesChecked');

interface TsNodeService {
  compile(code: string, fileName: string, ...rest: unknown[]): unknown;
}

function checkTsNodeCompiles(registered: unknown): void {
  const service = registered as Partial<TsNodeService> & Record<symbol, unknown>;
  if (typeof service?.compile !== 'function' || service[COMPILES_CHECKED] === true) return;
  const compile = service.compile;
  service[COMPILES_CHECKED] = true;
  service.compile = function (this: unknown, code, fileName, ...rest) {
    const output = compile.call(this, code, fileName, ...rest);
    if (
      typeof fileName === 'string' &&
      TS_NODE_CODE_IN_MEMORY.test(fileName) &&
      (typeof code !== 'string' || MAY_NAME_TAG.test(code)) &&
      !woveInMemory(fileName)
    )
      refuseMainCode(TS_NODE_UNWOVEN);
    return output;
  };
}

/** True when lockweave's transformer was handed ts-node's file for code not in a file (`[eval].ts`). */
function woveInMemory(fileName: string): boolean {
  const wanted = fileName.replace(/\\/g, '/');
  return marksOf().some((mark) => [...mark.files].some((file) => file.replace(/\\/g, '/') === wanted));
}

/**
 * A JavaScript entry, or a route that wove some files: the TypeScript that ran past a route — and
 * code under any other name no route weaves (isCompiledSource) — must not hold tags.
 */
function assertImportsWoven(bun: boolean, entry: string, otherNamesOnly = false): void {
  // Files under other names show in require.cache and pass Node's load hooks (an ES module needs a
  // loader of another tool for such a name): V8's list of modules is not asked for them.
  const files = otherNamesOnly ? requiredTypeScript() : loadedTypeScript();
  const judged = (file: string): boolean => !otherNamesOnly || !TYPESCRIPT_FILE.test(file);
  const runtime = bun ? 'Bun' : 'Node';
  if (files === undefined) {
    throw new Error(
      `lockweave: ${runtime} may have run TypeScript that ${entry} imported, and this process cannot tell (no inspector), so tagged methods could run unlocked. ${howToWeave(bun, entry)}`,
    );
  }
  const refuse = (file: string): never => {
    const marks = marksOf();
    // A name no route weaves (loaded-typescript.ts, isCompiledSource): only a rename makes it woven.
    if (!TYPESCRIPT_FILE.test(file)) throw new Error(unwovenNameMessage(runtime, file));
    throw new Error(
      marks.length === 0
        ? `lockweave: ${runtime} ran ${file} (imported by ${entry}) without a lockweave route, so its tagged methods would run unlocked. ${howToWeave(bun, entry)}`
        : bun
          ? `lockweave: Bun ran ${file} without lockweave's route weaving it: a plugin registered before lockweave's loaded it, ` +
            'so its tagged methods would run unlocked. Register lockweave first: preload = ["lockweave/bun/register", …] in bunfig.toml.'
          : marks.some((mark) => mark.weavesAtCompile === true)
            ? `lockweave: Node ran ${file} without lockweave's transformer weaving it: the compiler that weaves (ts-node with ` +
              'ts-patch\'s compiler) left it to another (ts-node\'s "scope", "scopeDir" or "ignore" settings leave a file to Node, ' +
              'which strips its types and the tags with them), so its tagged methods would run unlocked. Let ts-node compile every ' +
              `TypeScript file the process runs, or start it with \`node --import lockweave/register ${entry}\`.`
            : `lockweave: Node ran ${file} without lockweave/register weaving it: a load hook registered after lockweave/register's ` +
              "(module.registerHooks: Node runs the hook registered last first) loaded it in lockweave's place, or it was loaded before " +
              'lockweave/register was, so its tagged methods would run unlocked. Load lockweave/register first, as a preload ' +
              `(\`node --import lockweave/register ${entry}\`), and register other load hooks before it, or have them call nextLoad for TypeScript files.`,
    );
  };
  const tagged = files.find((file) => judged(file) && !wove(file) && holdsTag(file));
  if (tagged !== undefined) refuse(tagged);
  // What this process loads from now on: Node's loader refuses a tagged file before it runs; what
  // only require.cache shows (Bun, another loader's require hook) is refused once start-up's
  // first turn is over, thrown where nothing can catch it.
  const checkLater = (file: string): void => {
    if (judged(file) && !wove(file) && holdsTag(file)) refuse(file);
  };
  checkLaterTypeScript(
    checkLater,
    marksOf().some((mark) => mark.weavesAtCompile === true),
  );
  setImmediate(() => requiredTypeScript().forEach(checkLater));
}

/** The refusal of a file compiled under a name no route weaves, with tags on disk (lockweave/register's too). */
export function unwovenNameMessage(runtime: string, file: string): string {
  return (
    `lockweave: ${runtime} ran ${file}, which holds @${'redisLock'} tags, as code under a name lockweave's routes do not weave ` +
    "(a bunfig [loader] lockweave's Bun plugin did not find, another tool's require hook or loader, or `require` of an unknown " +
    'extension, which Node runs as JavaScript), so its tagged methods would run unlocked. Rename it to .ts (or .mts, .cts, .tsx), ' +
    'or build with `lockweave build` (or tspc) and run the JavaScript it writes.'
  );
}

/** The fix a refusal names: the route for the runtime, started on `entry`, or a build. */
function howToWeave(bun: boolean, entry: string | undefined): string {
  const build = 'or build with `lockweave build` (or tspc) and run the JavaScript it writes.';
  return bun
    ? 'Add to bunfig.toml: preload = ["lockweave/bun/register"] (for bun run) and, under [test], preload = ["lockweave/bun/register"] (for bun test); ' +
        build
    : `Start it with \`node --import lockweave/register ${entry}\` (with tsx: \`node --import lockweave/register --import tsx ${entry}\`; ` +
        `ts-node: "compiler": "ts-patch/compiler" with the plugin entry); ${build}`;
}

/** The marks the routes in this process left: none without a route. */
function marksOf(): readonly WovenFiles[] {
  const marks = (globalThis as Record<symbol, unknown>)[WEAVES];
  return Array.isArray(marks)
    ? marks.filter((mark): mark is WovenFiles => (mark as Partial<WovenFiles> | undefined)?.files instanceof Set)
    : [];
}

/** True when a lockweave route wove (or saw) `file`. */
function wove(file: string): boolean {
  return marksOf().some((mark) => mark.files.has(file));
}

/** A tag's text inside a `/**` block: what a woven file's module defines a lock for (text in a string is not). */
const TAG_IN_JSDOC = new RegExp(`/\\*\\*(?:(?!\\*/)[\\s\\S])*?${MAY_NAME_TAG.source}`, 'i');

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function holdsTag(file: string): boolean {
  try {
    return MAY_NAME_TAG.test(readFileSync(file, 'utf8'));
  } catch {
    return true; // gone or unreadable since it ran: what it held cannot be shown harmless
  }
}
