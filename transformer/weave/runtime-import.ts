// The imports woven code needs: one `import * as lockweave_1 from "lockweave/runtime"` per file,
// and `import * as errors_1 from "./errors"` for an imported onFail class.
//
// Namespace imports because they survive every module format unchanged in meaning: TypeScript
// keeps a synthesized import (it cannot be "unused"), CommonJS output turns it into
// `const lockweave_1 = require(...)`, and `lockweave_1.defineLock` needs no identifier rewriting —
// which TypeScript would not do for identifiers a transformer created.
import type * as ts from 'typescript';

export const RUNTIME_SPECIFIER = 'lockweave/runtime';

export function namespaceImport(factory: ts.NodeFactory, local: ts.Identifier, specifier: string): ts.ImportDeclaration {
  return factory.createImportDeclaration(
    undefined,
    factory.createImportClause(false, undefined, factory.createNamespaceImport(local)),
    factory.createStringLiteral(specifier),
  );
}

/** Where new imports go: after the prologue and the file's own leading imports. */
export function importInsertionIndex(tsApi: typeof ts, statements: readonly ts.Statement[]): number {
  let index = 0;
  while (index < statements.length &&
    (isPrologue(tsApi, statements[index]) || tsApi.isImportDeclaration(statements[index]) || tsApi.isImportEqualsDeclaration(statements[index]))) index++;
  return index;
}

/** A leading string statement such as "use strict": it must stay first in its body. */
export function isPrologue(tsApi: typeof ts, statement: ts.Statement): boolean {
  return tsApi.isExpressionStatement(statement) && tsApi.isStringLiteral(statement.expression);
}
