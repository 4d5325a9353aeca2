// The imports woven code needs: one for the runtime per file, and one for the module of an
// imported onFail class, each bound to a whole-module name (`lockweave_1.defineLock`,
// `errors_1.Busy`): such a reference needs no identifier rewriting by TypeScript's module
// transform, which it would not do for identifiers a transformer created.
//
// The form follows the file's emitted module format:
//   ES modules   import * as lockweave_1 from "lockweave/runtime";
//   CommonJS     const lockweave_1 = require("lockweave/runtime");
// For CommonJS we write the require ourselves rather than let TypeScript lower a namespace
// import: that lowering adds the __importStar helper (some 35 lines) to every woven file, which
// a reader has to skip and the compiler has to print.
import type * as ts from 'typescript';

export const RUNTIME_SPECIFIER = 'lockweave/runtime';

export function moduleImport(
  tsApi: typeof ts,
  factory: ts.NodeFactory,
  commonJs: boolean,
  local: ts.Identifier,
  specifier: string,
): ts.Statement {
  if (commonJs) {
    const required = factory.createCallExpression(factory.createIdentifier('require'), undefined, [
      factory.createStringLiteral(specifier),
    ]);
    return factory.createVariableStatement(
      undefined,
      factory.createVariableDeclarationList(
        [factory.createVariableDeclaration(local, undefined, undefined, required)],
        tsApi.NodeFlags.Const,
      ),
    );
  }
  return factory.createImportDeclaration(
    undefined,
    factory.createImportClause(false, undefined, factory.createNamespaceImport(local)),
    factory.createStringLiteral(specifier),
  );
}

/** True when TypeScript emits this file as CommonJS (`module: commonjs`, or a CommonJS-format file under node16/nodenext). */
export function emitsCommonJs(tsApi: typeof ts, options: ts.CompilerOptions, sourceFile: ts.SourceFile): boolean {
  const { ModuleKind, ScriptTarget } = tsApi;
  // TypeScript's own rule when `module` is unset: ES2015 modules from an ES2015 target up.
  const kind =
    options.module ??
    ((options.target ?? ScriptTarget.ES5) >= ScriptTarget.ES2015 ? ModuleKind.ES2015 : ModuleKind.CommonJS);
  // node16, node18, node20, nodenext and preserve decide per file (package.json "type", .cts/.mts).
  if (kind !== undefined && kind >= ModuleKind.Node16) return sourceFile.impliedNodeFormat === ModuleKind.CommonJS;
  return kind === ModuleKind.CommonJS;
}

/** Where new imports go: after the prologue and the file's own leading imports. */
export function importInsertionIndex(tsApi: typeof ts, statements: readonly ts.Statement[]): number {
  let index = 0;
  while (
    index < statements.length &&
    (isPrologue(tsApi, statements[index]) ||
      tsApi.isImportDeclaration(statements[index]) ||
      tsApi.isImportEqualsDeclaration(statements[index]))
  )
    index++;
  return index;
}

/** How many statements at the start are a prologue ("use strict", ...), which must stay first. */
export function prologueLength(tsApi: typeof ts, statements: readonly ts.Statement[]): number {
  let length = 0;
  while (length < statements.length && isPrologue(tsApi, statements[length])) length++;
  return length;
}

/** A leading string statement such as "use strict": it must stay first in its body. */
export function isPrologue(tsApi: typeof ts, statement: ts.Statement): boolean {
  return tsApi.isExpressionStatement(statement) && tsApi.isStringLiteral(statement.expression);
}
