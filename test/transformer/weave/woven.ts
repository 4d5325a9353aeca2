// The weave tests' two ways in, both in process: the tspc route's (analyse with a type checker,
// weaveFile() as a transformer over the AST, printed) and the text route's (weaveSource(), which
// the bundler, loader and jest routes call: no checker, TypeScript text out).
import type * as ts from 'typescript';
import { analyseFile, type FileAnalysis } from '../../../transformer/check/analyse';
import { weaveFile } from '../../../transformer/weave/weave-file';
import { weaveSource } from '../../../transformer/weave-source';
import { checkedFile, parsedFile, tsApi } from '../../helpers/in-memory-program';

export interface Woven {
  readonly analysis: FileAnalysis;
  /** The woven file as tspc would emit it before the JavaScript step (types kept), comments dropped. */
  readonly text: string;
}

export function wovenByTspcRoute(source: string, module: ts.ModuleKind = tsApi.ModuleKind.CommonJS): Woven {
  const { file, checker } = checkedFile(source);
  const analysis = analyseFile(tsApi, checker, file, {});
  const result = tsApi.transform(
    file,
    [(context) => (sourceFile) => weaveFile(tsApi, context, sourceFile, analysis).sourceFile],
    {
      module,
    },
  );
  const text = tsApi.createPrinter({ removeComments: true }).printFile(result.transformed[0]!);
  result.dispose();
  return { analysis, text };
}

export function wovenByTextRoute(source: string, format: 'esm' | 'cjs' = 'esm'): string {
  return weaveSource('/virtual/service.ts', source, { format, sourceMap: false }).code;
}

/**
 * Every name the code of `text` uses (identifiers and property names), comments and string
 * literals left out: what tag text would add here, had it become code.
 */
export function namesInCode(text: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (tsApi.isIdentifier(node) || tsApi.isPrivateIdentifier(node)) names.add(node.text);
    tsApi.forEachChild(node, visit);
  };
  visit(parsedFile(text));
  return names;
}

/** Syntax errors of `text` read back as TypeScript: woven output must parse. */
export function syntaxErrors(text: string): readonly ts.Diagnostic[] {
  return (parsedFile(text) as ts.SourceFile & { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
}
