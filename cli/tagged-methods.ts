// Which methods of a project hold a lock, per the one analysis the weave itself runs: a tag the
// analysis ignores or refuses is not counted as a lock (it is an error instead).
import * as path from 'node:path';
import type * as ts from 'typescript';
import { analyseFile, type FileAnalysis } from '../transformer/check/analyse';
import { lockOrder, type LockOrder } from '../transformer/check/lock-order';
import { toTsDiagnostic } from '../transformer/diagnostics';
import { readPluginOptions } from '../transformer/plugin-config';
import { OPTION_NAMES } from '../runtime/base/option-table';

export interface TaggedMethod {
  /** As woven into `defineLock({ site: "OrderService.pay", … })`. */
  readonly site: string;
  /** `src/order-service.ts:12:3`, relative to the working directory. */
  readonly where: string;
  /** The source file, as the program names it. */
  readonly file: string;
  /**
   * What the weave passes to defineLock() for it (transformer/weave/define-lock-call.ts): site,
   * businessFlag and each option the tag or the plugin's defaults set.
   */
  readonly spec: Readonly<Record<string, string | number | boolean>>;
}

export interface TagReport {
  readonly methods: readonly TaggedMethod[];
  /** Tag errors, lock-order cycles, and errors in the plugin entry's options. */
  readonly errors: readonly ts.Diagnostic[];
  readonly files: number;
  /** Which locks are taken while others are held (with a program: calls are resolved by its checker). */
  readonly order?: LockOrder;
}

/**
 * With a program, keys are checked against types (as tspc does); without one each file is parsed on
 * its own, which finds the same locks and every error that needs no types.
 */
export function tagReport(
  tsApi: typeof ts,
  files: readonly ts.SourceFile[],
  options: Record<string, unknown>,
  program?: ts.Program,
): TagReport {
  // The checker first: it binds every file, which sets the parent links the analysis walks up.
  const checker = program?.getTypeChecker();
  const plugin = readPluginOptions(options);
  const methods: TaggedMethod[] = [];
  const errors: ts.Diagnostic[] = plugin.errors.map((e) => toTsDiagnostic(tsApi, e));
  const analyses = new Map<ts.SourceFile, FileAnalysis>();
  const analyse = (file: ts.SourceFile) => {
    let analysis = analyses.get(file);
    if (!analysis) analyses.set(file, (analysis = analyseFile(tsApi, checker, file, plugin.defaults)));
    return analysis;
  };
  for (const file of files) {
    const analysis = analyse(file);
    for (const plan of analysis.plans) {
      const { line, character } = file.getLineAndCharacterOfPosition(plan.target.node.getStart(file));
      const spec: Record<string, string | number | boolean> = {
        site: plan.target.site,
        businessFlag: plan.businessFlag,
      };
      for (const name of OPTION_NAMES) if (plan.options[name] !== undefined) spec[name] = plan.options[name];
      methods.push({
        site: plan.target.site,
        where: `${path.relative(process.cwd(), file.fileName)}:${line + 1}:${character + 1}`,
        file: file.fileName,
        spec,
      });
    }
    errors.push(...analysis.errors.map((e) => toTsDiagnostic(tsApi, e)));
  }
  const order = checker && lockOrder(tsApi, checker, files, analyse);
  for (const cycleErrors of order?.errors.values() ?? [])
    errors.push(...cycleErrors.map((e) => toTsDiagnostic(tsApi, e)));
  return { methods, errors, files: files.length, order };
}

/** The project's own sources: not declaration files, not what node_modules brings in. */
export function projectSources(program: ts.Program): ts.SourceFile[] {
  return program
    .getSourceFiles()
    .filter(
      (file) =>
        !file.isDeclarationFile &&
        !program.isSourceFileFromExternalLibrary(file) &&
        !/[\\/]node_modules[\\/]/.test(file.fileName),
    );
}
