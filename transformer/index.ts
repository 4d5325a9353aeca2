// lockweave/transformer — the ts-patch entry. One default export serves both tsconfig entries:
//
//   { "transform": "lockweave/transformer" }                            weaves, reports tag errors
//   { "transform": "lockweave/transformer", "transformProgram": true }  also reports them as
//        semantic diagnostics, so `tspc --noEmit`, `tspc -b` and type-checking ts-node see them
//
// ts-patch calls a source transformer as (program, config, extras) and a program transformer as
// (program, host, config, extras) with `config.transformProgram === true`; that flag tells them apart.
import * as path from 'node:path';
import type * as ts from 'typescript';
import { analyseFile, type FileAnalysis } from './check/analyse';
import { lockOrder, type LockOrder } from './check/lock-order';
import type { LockOptions } from '../runtime/base/options';
import { markCompileWeaving } from '../runtime/base/weave-mark';
import { Code, formatError, LockweaveDiagnostic, toTsDiagnostic } from './diagnostics';
import { nearestEntryMismatch } from './nearest-entry';
import { isLockweaveTransform, optionsEntry, settingsNote, settingsText, weavingEntry } from './plugin-entry';
import { readPluginOptions } from './plugin-config';
import { weaveFile } from './weave/weave-file';

interface SourceExtras {
  ts?: typeof ts;
  addDiagnostic?: (diagnostic: ts.Diagnostic) => number;
}

type PluginConfig = Record<string, unknown> & { transformProgram?: boolean };

/** Set on a program whose diagnostics the program entry serves, so errors are not reported twice. */
const SERVED: symbol = Symbol.for('lockweave.diagnosticsServedByProgram');

const AFTER_DECLARATIONS =
  'lockweave: lockweave/transformer weaves methods, not declaration files: remove "afterDeclarations" from its plugin entry in tsconfig.json';

export default function lockweave(program: ts.Program, second?: unknown, third?: unknown, fourth?: unknown): unknown {
  // ts-patch calls an entry with "type": "raw", "config" or "checker" with something else first; one
  // with "afterDeclarations" runs on declarations only. Said here, not as a TypeError deep inside.
  if (typeof (program as { getTypeChecker?: unknown } | undefined)?.getTypeChecker !== 'function')
    throw new TypeError(
      'lockweave: lockweave/transformer is a ts-patch source transformer of the program ' +
        '({ "transform": "lockweave/transformer" }, optionally with "transformProgram": true): remove "type" from its ' +
        'plugin entry in tsconfig.json',
    );
  if ((second as PluginConfig | undefined)?.afterDeclarations === true) throw new TypeError(AFTER_DECLARATIONS);
  if ((third as PluginConfig | undefined)?.transformProgram === true) {
    const config = third as PluginConfig;
    // The program entry alone reports errors and weaves nothing: tspc would emit every tagged
    // method unlocked with exit 0. That is a build error of its own.
    const mismatch = isLockweaveTransform(config.transform) ? undefined : entryMismatch(program, config);
    const errors = [
      ...(weavingEntry(program.getCompilerOptions().plugins) ? [] : [PROGRAM_ENTRY_ALONE]),
      ...(mismatch ? [mismatch] : []),
    ];
    return serveDiagnostics(program, config, fourth as { ts?: typeof ts } | undefined, errors);
  }
  const config = second as PluginConfig | undefined;
  const extras = third as SourceExtras | undefined;
  if (fromTsPatch(extras)) {
    // Reported here, not through the program entry (which serves the tag errors): that one may be
    // spelled as the routes read it while this one is not.
    const tsApi: typeof ts = extras.ts ?? require('typescript');
    const mismatch = entryMismatch(program, config ?? {}) ?? nearestEntryMismatch(program, config ?? {}, tsApi);
    if (mismatch) extras.addDiagnostic(toTsDiagnostic(tsApi, mismatch));
  }
  return sourceTransformer(program, config, extras);
}

/**
 * ts-patch's extras (its `removeDiagnostic` beside `addDiagnostic`): tspc, or ts-node with
 * ts-patch's compiler, loaded this transformer from a tsconfig plugin entry. lockweave's own callers
 * (lockweave build, show, the Nest plugin) hand it the settings the routes read themselves.
 */
function fromTsPatch(
  extras: SourceExtras | undefined,
): extras is SourceExtras & Required<Pick<SourceExtras, 'addDiagnostic'>> {
  const given = extras as (SourceExtras & { removeDiagnostic?: unknown }) | undefined;
  return typeof given?.addDiagnostic === 'function' && typeof given.removeDiagnostic === 'function';
}

/**
 * tspc weaves with the settings of the entry it loaded this transformer from; every other route
 * (lockweave/register, the bundler plugins, jest, lockweave check) reads the entry that names
 * lockweave's transformer "lockweave/transformer" (or a path into the package), or none. ts-patch
 * hands a source transformer its entry without `transform`, so the entry is judged by its settings:
 * they must be those the routes read (the defaults, when they find no entry), else the routes lock
 * other keys than tspc. A module that re-exports the transformer with no settings of its own locks
 * the keys the routes lock.
 */
function entryMismatch(program: ts.Program, config: PluginConfig): LockweaveDiagnostic | undefined {
  const read = optionsEntry(program.getCompilerOptions().plugins);
  if (settingsText(read ?? {}) === settingsText(config)) return undefined;
  if (!read) return unreadEntry(config.transform);
  return new LockweaveDiagnostic(
    Code.PluginConfig,
    `lockweave's transformer was loaded from a plugin entry whose prefix and defaults (${settingsText(config)}) are not those of ` +
      `the entry lockweave's other routes read, { "transform": ${JSON.stringify(read.transform)} } (${settingsText(read)})${settingsNote([config, read])}: they would lock ` +
      'other keys than tspc. Keep one entry that weaves, { "transform": "lockweave/transformer", … }, with the prefix and defaults',
    NOWHERE,
  );
}

function unreadEntry(transform: unknown): LockweaveDiagnostic {
  const named = typeof transform === 'string' ? ` ${JSON.stringify(transform)}` : '';
  return new LockweaveDiagnostic(
    Code.PluginConfig,
    `lockweave's transformer was loaded from a plugin entry${named} that does not name it "lockweave/transformer" (a module that ` +
      "re-exports it, or a copy elsewhere): lockweave's other routes (lockweave/register, the bundler plugins, jest, lockweave check) " +
      'find the entry by that name, would not read its prefix and defaults, and would lock other keys than tspc. Name it ' +
      '"lockweave/transformer" (or the installed package\'s file, ./node_modules/lockweave/dist/transformer/index.js) in compilerOptions.plugins',
    NOWHERE,
  );
}

const NOWHERE = { file: undefined, start: 0, length: 0 };

export function sourceTransformer(
  program: ts.Program,
  config: PluginConfig | undefined,
  extras: SourceExtras | undefined,
): ts.TransformerFactory<ts.SourceFile> {
  // A program this process compiles with the weave (ts-node with ts-patch's compiler) may run its
  // TypeScript here, which loads the runtime (runtime/base/weave-mark.ts): the files handed to the
  // weave are marked, and the runtime checks any other TypeScript that ran (ts-node leaves files
  // outside its scope, or that it ignores, to Node, which strips their types and their tags with
  // them). The program entry alone weaves nothing, so only this one marks.
  markCompileWeaving(handedFiles);
  const tsApi = extras?.ts ?? (require('typescript') as typeof ts);
  // First: the checker binds every file, which sets the parent links analysis walks up.
  const checker = program.getTypeChecker();
  const plugin = readPluginOptions(config);
  const report = reporter(tsApi, program, extras);
  plugin.errors.forEach(report);
  const analyse = cachedAnalysis(tsApi, checker, plugin.defaults);
  const order = programLockOrder(tsApi, program, checker, analyse);
  return (context) => (handed) => {
    if (wovenFiles.has(handed)) return handed;
    // Declaration emit ("afterDeclarations" in the plugin entry) hands its transformers declaration files and bundles.
    if (!tsApi.isSourceFile(handed) || handed.isDeclarationFile) throw new TypeError(AFTER_DECLARATIONS);
    // Tags are read on the program's own parse of the file: a transformer listed before this one
    // may hand on a tree it rebuilt, without the positions that pair a tag with its function.
    const sourceFile = tsApi.getOriginalNode(handed, tsApi.isSourceFile) ?? handed;
    const analysis = analyse(sourceFile);
    analysis.errors.forEach(report);
    order().errors.get(sourceFile)?.forEach(report);
    // A function with a tag error is emitted with a body that throws it; a function the handed
    // tree lost, with a module that throws (see weave-file.ts).
    const woven = weaveFile(tsApi, context, handed, analysis);
    woven.missed.forEach(report);
    if (woven.sourceFile !== handed) wovenFiles.add(woven.sourceFile);
    handedFiles.add(path.resolve(sourceFile.fileName));
    return woven.sourceFile;
  };
}

/**
 * What this weave returned. Two entries can run in one emit — ts-jest given ts-patch's compiler
 * (the tsconfig entry) and lockweave/ts-jest — and the second is handed the first's output:
 * weaving it again would lock each method twice. Output nodes are new in every emit, so a file
 * emitted again is woven again.
 */
const wovenFiles = new WeakSet<ts.SourceFile>();

/** The files this process's weave was handed, by their path on disk (ts-node's for code not in a file: `[eval].ts`). */
const handedFiles = new Set<string>();

function reporter(tsApi: typeof ts, program: ts.Program, extras: SourceExtras | undefined) {
  const served = (program as unknown as Record<symbol, unknown>)[SERVED] === true;
  return (error: import('./diagnostics').LockweaveDiagnostic) => {
    if (served) return;
    if (!extras?.addDiagnostic) {
      // Without ts-patch's addDiagnostic nobody would see the error and the method would ship unlocked.
      throw new Error(formatError(error));
    }
    extras.addDiagnostic(toTsDiagnostic(tsApi, error));
  };
}

const PROGRAM_ENTRY_ALONE = new LockweaveDiagnostic(
  Code.PluginConfig,
  'the "transformProgram": true entry only reports errors; without the entry { "transform": "lockweave/transformer" } beside it in compilerOptions.plugins, every tagged method is emitted without its lock',
  NOWHERE,
);

/**
 * The program entry: adds @redisLock errors to the program's own diagnostics, and `globalErrors`
 * to its global ones. (`lockweave build` calls it directly: it weaves without a plugin entry.)
 */
export function serveDiagnostics(
  program: ts.Program,
  config: PluginConfig,
  extras: { ts?: typeof ts } | undefined,
  globalErrors: readonly LockweaveDiagnostic[] = [],
): ts.Program {
  const tsApi = extras?.ts ?? (require('typescript') as typeof ts);
  const target = program as unknown as Record<string | symbol, unknown>;
  if (target[SERVED]) return program;
  const { errorsOf, globalErrorsOf } = programDiagnostics(tsApi, program, config);
  const allErrors = () => program.getSourceFiles().flatMap(errorsOf);

  const semantic = program.getSemanticDiagnostics.bind(program);
  target.getSemanticDiagnostics = (file?: ts.SourceFile, token?: ts.CancellationToken) => [
    ...semantic(file, token),
    ...(file ? errorsOf(file) : allErrors()),
  ];
  // `tspc -b` (the builder) reads this internal per-file method instead.
  const bindAndCheck = target.getBindAndCheckDiagnostics as
    | ((file: ts.SourceFile, token?: ts.CancellationToken) => readonly ts.Diagnostic[])
    | undefined;
  if (typeof bindAndCheck === 'function') {
    target.getBindAndCheckDiagnostics = (file: ts.SourceFile, token?: ts.CancellationToken) => [
      ...bindAndCheck.call(program, file, token),
      ...errorsOf(file),
    ];
  }
  const global = program.getGlobalDiagnostics.bind(program);
  target.getGlobalDiagnostics = (token?: ts.CancellationToken) => [...global(token), ...globalErrorsOf(globalErrors)];
  target[SERVED] = true;
  return program;
}

/**
 * lockweave's diagnostics of a program, as TypeScript diagnostics: each file's tag and lock-order
 * errors, and the plugin entry's own. What tspc's program entry, `lockweave build`, the Nest plugin
 * and the editor's language-service plugin report, from one analysis per file.
 */
export function programDiagnostics(tsApi: typeof ts, program: ts.Program, config: PluginConfig | undefined) {
  const checker = program.getTypeChecker();
  const plugin = readPluginOptions(config);
  const analyse = cachedAnalysis(tsApi, checker, plugin.defaults);
  const order = programLockOrder(tsApi, program, checker, analyse);
  return {
    analyse,
    errorsOf: (file: ts.SourceFile): ts.Diagnostic[] =>
      [...analyse(file).errors, ...(order().errors.get(file) ?? [])].map((e) => toTsDiagnostic(tsApi, e)),
    globalErrorsOf: (more: readonly LockweaveDiagnostic[] = []): ts.Diagnostic[] =>
      [...plugin.errors, ...more].map((e) => toTsDiagnostic(tsApi, e)),
  };
}

/**
 * The program's lock order (check/lock-order.ts), computed once, when the first file asks: it needs
 * every tagged file's plans. Files without a tag cost a text scan (analyseFile returns at once).
 */
const orders = new WeakMap<(file: ts.SourceFile) => FileAnalysis, LockOrder>();

export function programLockOrder(
  tsApi: typeof ts,
  program: ts.Program,
  checker: ts.TypeChecker,
  analyse: (file: ts.SourceFile) => FileAnalysis,
): () => LockOrder {
  return () => {
    let order = orders.get(analyse);
    if (!order) {
      const files = program.getSourceFiles().filter((file) => !file.isDeclarationFile);
      orders.set(analyse, (order = lockOrder(tsApi, checker, files, analyse)));
    }
    return order;
  };
}

/**
 * One analysis per file, checker and defaults: with both tsconfig entries, the program entry's
 * diagnostics and the emit entry's weaving read the same one instead of analysing twice.
 * (A file object can outlive its program in watch mode; the checker in the key keeps a new
 * program from reading types resolved by an old one.)
 */
const analyses = new WeakMap<ts.TypeChecker, Map<string, WeakMap<ts.SourceFile, FileAnalysis>>>();

function cachedAnalysis(tsApi: typeof ts, checker: ts.TypeChecker, defaults: Partial<LockOptions>) {
  let byDefaults = analyses.get(checker);
  if (!byDefaults) analyses.set(checker, (byDefaults = new Map()));
  const key = JSON.stringify(defaults);
  let cache = byDefaults.get(key);
  if (!cache) byDefaults.set(key, (cache = new WeakMap()));
  const files = cache;
  let analyse = analysers.get(files);
  if (!analyse) {
    analyse = (sourceFile: ts.SourceFile): FileAnalysis => {
      let analysis = files.get(sourceFile);
      if (!analysis) files.set(sourceFile, (analysis = analyseFile(tsApi, checker, sourceFile, defaults)));
      return analysis;
    };
    analysers.set(files, analyse);
  }
  return analyse;
}

/** One analysing function per cache, so that what is computed from all of them (the lock order) is too. */
const analysers = new WeakMap<WeakMap<ts.SourceFile, FileAnalysis>, (file: ts.SourceFile) => FileAnalysis>();
