// onFail=skip resolves `undefined` when the lock is busy: the woven `if (!lease_1) return undefined;`
// (weave/method-body.ts). A method that declares `Promise<string>` would then lie to its callers, and
// the woven TypeScript a type-checking tool reads on the text routes (ts-loader, a vitest typecheck)
// would not compile there while the source did. So a skipping tag's function declares a return type
// that admits undefined. Read from the annotation's syntax alone, so that every route — tspc with its
// type checker, the bundlers and loaders without one — says the same of the same tag.
import type * as ts from 'typescript';

const ADMITS_UNDEFINED = new Set(['undefined', 'void', 'any', 'unknown']);

/** What is wrong with the function's declared return type for onFail=skip; undefined when nothing is. */
export function skipReturnProblem(tsApi: typeof ts, node: ts.SignatureDeclaration): string | undefined {
  const declared = node.type;
  if (!declared)
    return 'onFail=skip resolves undefined when the lock is busy: declare the return type, e.g. Promise<T | undefined>';
  const resolved = promised(tsApi, declared);
  if (resolved && admitsUndefined(tsApi, resolved)) return undefined;
  const text = declared.getText();
  const suggestion = resolved ? `Promise<${resolved.getText()} | undefined>` : 'Promise<T | undefined>';
  return `onFail=skip resolves undefined when the lock is busy, but the return type ${text} does not admit undefined: declare ${suggestion}`;
}

/** `T` of `Promise<T>`; undefined for any other annotation (an alias says nothing here). */
function promised(tsApi: typeof ts, type: ts.TypeNode): ts.TypeNode | undefined {
  if (!tsApi.isTypeReferenceNode(type) || type.typeArguments?.length !== 1) return undefined;
  const name = type.typeName;
  return tsApi.isIdentifier(name) && name.text === 'Promise' ? type.typeArguments[0] : undefined;
}

function admitsUndefined(tsApi: typeof ts, type: ts.TypeNode): boolean {
  if (tsApi.isParenthesizedTypeNode(type)) return admitsUndefined(tsApi, type.type);
  if (tsApi.isUnionTypeNode(type)) return type.types.some((member) => admitsUndefined(tsApi, member));
  return ADMITS_UNDEFINED.has(type.getText());
}
