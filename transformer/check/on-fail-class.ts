// onFail=ClassName: the name must resolve, at the method, to a class (or a value that can be
// constructed). An imported class is reached through a namespace import the weaver adds,
// because TypeScript elides an import whose only use is a name the transformer wrote.
import type * as ts from 'typescript';
import { Code, fail, type Span } from '../diagnostics';
import { didYouMean } from './suggest';

export type FailureClassRef =
  | { kind: 'local'; name: string }
  | { kind: 'imported'; moduleSpecifier: string; exportName: string; localName: string };

export function resolveOnFailClass(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  at: ts.Node,
  name: string,
  span: Span,
): FailureClassRef {
  if (!checker) return resolveBySyntax(tsApi, at, name, span);
  const symbol = checker.resolveName(name, at, tsApi.SymbolFlags.Value | tsApi.SymbolFlags.Alias, false);
  if (!symbol) {
    const classes = checker.getSymbolsInScope(at, tsApi.SymbolFlags.Class).map((s) => s.getName());
    fail(
      Code.OnFailNotClass,
      `onFail ${name} is not a class in scope; write onFail=throw, onFail=skip or the name of an error class declared or imported in this file (${didYouMean(name, classes)})`,
      span,
    );
  }
  const isAlias = (symbol.flags & tsApi.SymbolFlags.Alias) !== 0;
  const target = isAlias ? checker.getAliasedSymbol(symbol) : symbol;
  const constructible =
    (target.flags & tsApi.SymbolFlags.Class) !== 0 ||
    checker.getTypeOfSymbolAtLocation(target, at).getConstructSignatures().length > 0;
  if (!constructible) {
    fail(
      Code.OnFailNotClass,
      `onFail ${name} is not a class (it cannot be constructed with new ${name}(message)); name an error class, or write onFail=throw or onFail=skip`,
      span,
    );
  }
  if (!isAlias) return { kind: 'local', name };
  return importedClass(tsApi, symbol.declarations?.[0], name, span);
}

function importedClass(
  tsApi: typeof ts,
  declaration: ts.Declaration | undefined,
  name: string,
  span: Span,
): FailureClassRef {
  const importDeclaration = declaration && findImport(tsApi, declaration);
  if (!importDeclaration || !tsApi.isStringLiteral(importDeclaration.moduleSpecifier)) {
    fail(
      Code.OnFailNotClass,
      `onFail ${name} is an alias lockweave cannot reach at run time; import the class with import { ${name} } from "..." or declare it in this file`,
      span,
    );
  }
  const exportName = tsApi.isImportSpecifier(declaration!)
    ? (declaration.propertyName ?? declaration.name).text
    : tsApi.isImportClause(declaration!)
      ? 'default'
      : undefined;
  if (
    !exportName ||
    importDeclaration.importClause?.isTypeOnly ||
    (tsApi.isImportSpecifier(declaration!) && declaration.isTypeOnly)
  ) {
    fail(
      Code.OnFailNotClass,
      `onFail ${name} must be a value import of a class (import { ${name} } from "..."), not a type-only or namespace import`,
      span,
    );
  }
  return { kind: 'imported', moduleSpecifier: importDeclaration.moduleSpecifier.text, exportName, localName: name };
}

/**
 * Without a checker: the name must be declared as a value in a scope around the method — a
 * class, function or variable in an enclosing block or the file, or a value import. Whether it
 * can be constructed is then known only at run time, where a failure still rejects loudly.
 */
function resolveBySyntax(tsApi: typeof ts, at: ts.Node, name: string, span: Span): FailureClassRef {
  const seen: string[] = [];
  for (let scope: ts.Node | undefined = at.parent; scope; scope = scope.parent) {
    const statements =
      tsApi.isSourceFile(scope) || tsApi.isBlock(scope) || tsApi.isModuleBlock(scope) ? scope.statements : [];
    for (const statement of statements) {
      for (const declaration of declaredValues(tsApi, statement)) {
        seen.push(declaration.name);
        if (declaration.name !== name) continue;
        return declaration.node && (tsApi.isImportSpecifier(declaration.node) || tsApi.isImportClause(declaration.node))
          ? importedClass(tsApi, declaration.node, name, span)
          : { kind: 'local', name };
      }
    }
  }
  fail(
    Code.OnFailNotClass,
    `onFail ${name} is not a class in scope; write onFail=throw, onFail=skip or the name of an error class declared or imported in this file (${didYouMean(name, seen)})`,
    span,
  );
}

function declaredValues(tsApi: typeof ts, statement: ts.Statement): { name: string; node?: ts.Declaration }[] {
  if ((tsApi.isClassDeclaration(statement) || tsApi.isFunctionDeclaration(statement)) && statement.name)
    return [{ name: statement.name.text }];
  if (tsApi.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((d) =>
      tsApi.isIdentifier(d.name) ? [{ name: d.name.text }] : [],
    );
  }
  const clause = tsApi.isImportDeclaration(statement) ? statement.importClause : undefined;
  if (!clause) return [];
  const found: { name: string; node?: ts.Declaration }[] = clause.name
    ? [{ name: clause.name.text, node: clause }]
    : [];
  const bindings = clause.namedBindings;
  if (bindings && tsApi.isNamedImports(bindings))
    for (const element of bindings.elements) found.push({ name: element.name.text, node: element });
  return found;
}

function findImport(tsApi: typeof ts, node: ts.Node): ts.ImportDeclaration | undefined {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (tsApi.isImportDeclaration(n)) return n;
  return undefined;
}
