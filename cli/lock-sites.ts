// The lock specs a JavaScript file really creates: call expressions, found by parsing, never text
// in a comment, a string or a template that only looks like one. Every weaving route writes
//
//   pay_lock_1 = lockweave_1.defineLock({ site: "OrderService.pay", businessFlag: "payOrder", … })
//
// and what a bundler or minifier makes of it keeps the call and its object literal, with string
// literals as they were: `o.defineLock({site:"OrderService.pay",businessFlag:"payOrder"})`, or, when
// the runtime is bundled in and renamed, `Xe({site:…,businessFlag:…})`. So a spec is a call whose
// callee is named defineLock, or whose first argument is an object literal with both a string
// `site` and a string `businessFlag` — the shape of a lock spec.
import type * as ts from 'typescript';

/** The `site` of every lock spec created in the file, once per call. */
export function lockSitesIn(tsApi: typeof ts, fileName: string, text: string): string[] {
  // Cheap first: a file that never says `site` creates no spec.
  if (!/\bsite\b/.test(text)) return [];
  const sourceFile = tsApi.createSourceFile(fileName, text, tsApi.ScriptTarget.Latest, false, tsApi.ScriptKind.JS);
  const sites: string[] = [];
  const visit = (node: ts.Node): void => {
    if (tsApi.isCallExpression(node)) {
      const spec = node.arguments[0];
      if (spec && tsApi.isObjectLiteralExpression(spec)) {
        const site = stringProperty(tsApi, spec, 'site');
        if (
          site !== undefined &&
          (calleeName(tsApi, node.expression) === 'defineLock' ||
            stringProperty(tsApi, spec, 'businessFlag') !== undefined)
        )
          sites.push(site);
      }
    }
    tsApi.forEachChild(node, visit);
  };
  visit(sourceFile);
  return sites;
}

function stringProperty(tsApi: typeof ts, object: ts.ObjectLiteralExpression, name: string): string | undefined {
  for (const property of object.properties) {
    if (!tsApi.isPropertyAssignment(property)) continue;
    const key = property.name;
    const named = tsApi.isIdentifier(key) || tsApi.isStringLiteral(key) ? key.text : undefined;
    if (named !== name) continue;
    const value = property.initializer;
    return tsApi.isStringLiteral(value) || tsApi.isNoSubstitutionTemplateLiteral(value) ? value.text : undefined;
  }
  return undefined;
}

/** `defineLock`, `x.defineLock`, `x["defineLock"]`, `(0, x.defineLock)`: the name called. */
function calleeName(tsApi: typeof ts, callee: ts.Expression): string | undefined {
  if (
    tsApi.isParenthesizedExpression(callee) &&
    tsApi.isBinaryExpression(callee.expression) &&
    callee.expression.operatorToken.kind === tsApi.SyntaxKind.CommaToken
  ) {
    return calleeName(tsApi, callee.expression.right);
  }
  if (tsApi.isIdentifier(callee)) return callee.text;
  if (tsApi.isPropertyAccessExpression(callee)) return callee.name.text;
  if (tsApi.isElementAccessExpression(callee) && tsApi.isStringLiteral(callee.argumentExpression))
    return callee.argumentExpression.text;
  return undefined;
}
