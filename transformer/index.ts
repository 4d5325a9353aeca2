// lockweave/transformer — the ts-patch entry. One default export serves both tsconfig entries:
//
//   { "transform": "lockweave/transformer" }                            weaves, reports tag errors
//   { "transform": "lockweave/transformer", "transformProgram": true }  also reports them as
//        semantic diagnostics, so `tspc --noEmit`, `tspc -b` and type-checking ts-node see them
//
// ts-patch calls a source transformer as (program, config, extras) and a program transformer as
// (program, host, config, extras) with `config.transformProgram === true`; that flag tells them apart.
import type * as ts from 'typescript';
import { analyseFile, type FileAnalysis } from './check/analyse';
import { lockOrder, type LockOrder } from './check/lock-order';
import type { LockOptions } from '../runtime/base/options';
import { markWeaving } from '../runtime/base/weave-mark';
import { Code, formatError, LockweaveDiagnostic, toTsDiagnostic } from './diagnostics';
import { weavingEntry } from './plugin-entry';
import { readPluginOptions } from './plugin-config';
import { weaveFile } from './weave/weave-file';

interface SourceExtras {
  ts?: typeof ts;
  addDiagnostic?: (diagnostic: ts.Diagnostic) => number;
}

type PluginConfig = Record<string, unknown> & { transformProgram?: boolean };

/** Set on a program whose diagnostics the program entry serves, so errors are not reported twice. */
const SERVED: symbol = Symbol.for('lockweave.diagnosticsServedByProgram');

export default function lockweave(program: ts.Program, second?: unknown, third?: unknown, fourth?: unknown): unknown {
  if ((third as PluginConfig | undefined)?.transformProgram === true) {
    // The program entry alone reports errors and weaves nothing: tspc would emit every tagged
    // method unlocked with exit 0. That is a build error of its own.
    const alone = weavingEntry(program.getCompilerOptions().plugins) ? [] : [PROGRAM_ENTRY_ALONE];
    return serveDiagnostics(program, third as PluginConfig, fourth as { ts?: typeof ts } | undefined, alone);
  }
  return sourceTransformer(program, second as PluginConfig | undefined, third as SourceExtras | undefined);
}

export function sourceTransformer(
  program: ts.Program,
  config: PluginConfig | undefined,
  extras: SourceExtras | undefined,
): ts.TransformerFactory<ts.SourceFile> {
  // A program this process compiles with the weave (ts-node with ts-patch's compiler) may run its
  // TypeScript entry here, which loads the runtime (runtime/base/weave-mark.ts). The program entry
  // alone weaves nothing, so only this one marks.
  markWeaving();
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
  { file: undefined, start: 0, length: 0 },
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
