// What the tag stands on, and whether a lock can be woven there: async methods (instance, static,
// #private, object-literal), methods returning a Promise, and async function declarations.
import type * as ts from 'typescript';
import { Code, fail, type Span } from '../diagnostics';

export type LockableNode = ts.MethodDeclaration | ts.FunctionDeclaration;

export interface LockTarget {
  readonly node: LockableNode & { body: ts.Block };
  /** Where the tag stands, for logs and errors: `OrderService.pay`, `OrderService.#pay`, `payOrder`. */
  readonly site: string;
  /** A short name for the variable the hoisted defineLock() call is bound to: `pay` → `pay_lock_1`. */
  readonly baseName: string;
}

export function checkTarget(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  host: ts.Node,
  tagSpan: Span,
): LockTarget {
  // Named only in an error message: worked out when one is written, not for every tag.
  const where = () => describe(tsApi, host);
  if (
    tsApi.isConstructorDeclaration(host) ||
    tsApi.isGetAccessorDeclaration(host) ||
    tsApi.isSetAccessorDeclaration(host)
  ) {
    fail(Code.AccessorOrConstructor, `a ${where()} cannot be locked; tag an async method instead`, tagSpan);
  }
  if (
    (tsApi.isPropertyDeclaration(host) || tsApi.isPropertyAssignment(host)) &&
    host.initializer &&
    (tsApi.isArrowFunction(host.initializer) || tsApi.isFunctionExpression(host.initializer))
  ) {
    fail(
      Code.ArrowField,
      'a property holding an arrow function or function expression is not locked (the tag belongs to the property, not the function); write it as an async method: async pay(...) { ... }',
      tagSpan,
    );
  }
  if (
    tsApi.isVariableStatement(host) &&
    host.declarationList.declarations.some(
      (d) => d.initializer && (tsApi.isArrowFunction(d.initializer) || tsApi.isFunctionExpression(d.initializer)),
    )
  ) {
    fail(
      Code.NotAFunction,
      'a variable holding an arrow function or function expression is not locked (the tag belongs to the variable); write it as an async function declaration: async function pay(...) { ... }',
      tagSpan,
    );
  }
  if (tsApi.isMethodSignature(host)) {
    fail(Code.NoBody, 'a method signature has no body to lock; tag the method where it is implemented', tagSpan);
  }
  if (!tsApi.isMethodDeclaration(host) && !tsApi.isFunctionDeclaration(host)) {
    fail(
      Code.NotAFunction,
      `the tag stands on a ${where()}, which is not a method or function; tag an async method or an async function declaration`,
      tagSpan,
    );
  }
  if (host.asteriskToken) {
    fail(
      Code.Generator,
      'a generator (async or not) cannot be locked: the lock could not span its iteration; tag an async method that returns a Promise',
      tagSpan,
    );
  }
  if (!host.body) {
    if (hasImplementation(tsApi, host)) {
      fail(
        Code.OverloadSignature,
        'this tag stands on an overload signature and is not seen from the implementation; move it to the JSDoc of the implementation (the signature with the body)',
        tagSpan,
      );
    }
    fail(
      Code.NoBody,
      `this ${where()} has no body to lock (abstract or declared); tag the method that implements it`,
      tagSpan,
    );
  }
  const isAsync = (tsApi.getCombinedModifierFlags(host) & tsApi.ModifierFlags.Async) !== 0;
  if (!isAsync && !returnsPromise(tsApi, checker, host)) {
    fail(
      Code.NotAsync,
      `a synchronous ${where()} cannot hold a distributed lock; make it async (or declare that it returns a Promise)`,
      tagSpan,
    );
  }
  const name = nameText(tsApi, host.name) ?? 'default';
  return {
    node: host as LockableNode & { body: ts.Block },
    site: tsApi.isMethodDeclaration(host) ? `${ownerName(tsApi, host)}${name}` : name,
    baseName:
      name
        .replace(/^#/, '')
        .replace(/[^A-Za-z0-9_$]/g, '_')
        .replace(/^(?=\d)/, '_') || 'method',
  };
}

/** Without a checker, only a written `Promise<...>` return type says so. */
function returnsPromise(tsApi: typeof ts, checker: ts.TypeChecker | undefined, node: ts.SignatureDeclaration): boolean {
  if (!checker) {
    return (
      node.type !== undefined &&
      tsApi.isTypeReferenceNode(node.type) &&
      tsApi.isIdentifier(node.type.typeName) &&
      node.type.typeName.text === 'Promise'
    );
  }
  const signature = checker.getSignatureFromDeclaration(node);
  const type = signature && checker.getReturnTypeOfSignature(signature);
  return type?.getSymbol()?.getName() === 'Promise';
}

/** An overload signature is bodiless and has a sibling of the same name that has a body. */
function hasImplementation(tsApi: typeof ts, node: ts.MethodDeclaration | ts.FunctionDeclaration): boolean {
  const name = nameText(tsApi, node.name);
  const parent = node.parent;
  const siblings: readonly ts.Node[] = tsApi.isClassLike(parent)
    ? parent.members
    : tsApi.isObjectLiteralExpression(parent)
      ? parent.properties
      : ((parent as ts.Block | ts.SourceFile | ts.ModuleBlock).statements ?? []);
  return siblings.some(
    (s) =>
      (tsApi.isMethodDeclaration(s) || tsApi.isFunctionDeclaration(s)) &&
      s.body !== undefined &&
      nameText(tsApi, s.name) === name,
  );
}

function nameText(tsApi: typeof ts, name: ts.PropertyName | ts.Identifier | undefined): string | undefined {
  if (!name) return undefined;
  if (
    tsApi.isIdentifier(name) ||
    tsApi.isPrivateIdentifier(name) ||
    tsApi.isStringLiteral(name) ||
    tsApi.isNumericLiteral(name)
  )
    return name.text;
  return '[computed]';
}

/** `OrderService.` for a class member, `orders.` for `const orders = { ... }`, `` when unknown. */
function ownerName(tsApi: typeof ts, method: ts.MethodDeclaration): string {
  const parent = method.parent;
  if (tsApi.isClassLike(parent)) {
    const name =
      parent.name?.text ??
      (parent.parent && tsApi.isVariableDeclaration(parent.parent) && tsApi.isIdentifier(parent.parent.name)
        ? parent.parent.name.text
        : undefined);
    return `${name ?? '(anonymous class)'}.`;
  }
  const holder = parent.parent;
  if (
    holder &&
    (tsApi.isVariableDeclaration(holder) || tsApi.isPropertyAssignment(holder) || tsApi.isPropertyDeclaration(holder))
  ) {
    const name = nameText(tsApi, holder.name as ts.PropertyName);
    if (name) return `${name}.`;
  }
  return '';
}

function describe(tsApi: typeof ts, node: ts.Node): string {
  const kinds: [(n: ts.Node) => boolean, string][] = [
    [tsApi.isConstructorDeclaration, 'constructor'],
    [tsApi.isGetAccessorDeclaration, 'getter'],
    [tsApi.isSetAccessorDeclaration, 'setter'],
    [tsApi.isMethodDeclaration, 'method'],
    [tsApi.isFunctionDeclaration, 'function'],
    [tsApi.isClassLike, 'class'],
    [tsApi.isPropertyDeclaration, 'property'],
    [tsApi.isPropertyAssignment, 'property'],
    [tsApi.isVariableStatement, 'variable'],
    [tsApi.isInterfaceDeclaration, 'interface'],
    [tsApi.isTypeAliasDeclaration, 'type alias'],
    [tsApi.isEnumDeclaration, 'enum'],
  ];
  return kinds.find(([test]) => test(node))?.[1] ?? tsApi.SyntaxKind[node.kind];
}
