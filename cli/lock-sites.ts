// The lock specs a JavaScript file really creates: call expressions, found by parsing, never text
// in a comment, a string or a template that only looks like one. Every weaving route writes
//
//   pay_lock_1 = lockweave_1.defineLock({ site: "OrderService.pay", businessFlag: "payOrder", prefix: "CLI_" })
//
// (transformer/weave/define-lock-call.ts: site, businessFlag, then each option the tag or the
// plugin's defaults set, every value a literal), and what a bundler or minifier makes of it keeps
// the call and its object literal with the same values, printed differently:
// `o.defineLock({site:"OrderService.pay",businessFlag:"payOrder",lockTime:6e4,fencing:!0})`, or,
// when the runtime is bundled in and renamed, `Xe({site:…,businessFlag:…})`. So a spec is a call
// whose callee is named defineLock, or whose first argument is an object literal with both a string
// `site` and a string `businessFlag` — the shape of a lock spec — read back to the values it holds.
import type * as ts from 'typescript';

export type SpecValue = string | number | boolean;

export interface LockSpec {
  readonly site: string;
  /**
   * Every property of the object literal, by name, as the value it holds. Undefined when one is not
   * a literal (a spread, a variable, a call, a computed name): the weave writes literals only.
   */
  readonly options: Readonly<Record<string, SpecValue>> | undefined;
}

/** Every lock spec created in the file, once per call, in source order. */
export function lockSpecsIn(tsApi: typeof ts, fileName: string, text: string): LockSpec[] {
  // Cheap first: a file that never says `site` creates no spec.
  if (!/\bsite\b/.test(text)) return [];
  const sourceFile = tsApi.createSourceFile(fileName, text, tsApi.ScriptTarget.Latest, false, tsApi.ScriptKind.JS);
  const specs: LockSpec[] = [];
  const visit = (node: ts.Node): void => {
    if (tsApi.isCallExpression(node)) {
      const argument = node.arguments[0];
      if (argument && tsApi.isObjectLiteralExpression(argument)) {
        const options = literalObject(tsApi, argument);
        const site = stringProperty(tsApi, argument, 'site');
        if (
          site !== undefined &&
          (calleeName(tsApi, node.expression) === 'defineLock' ||
            stringProperty(tsApi, argument, 'businessFlag') !== undefined)
        )
          specs.push({ site, options });
      }
    }
    tsApi.forEachChild(node, visit);
  };
  visit(sourceFile);
  return specs;
}

/**
 * One string for a spec's values, equal for equal specs however they were printed: names sorted,
 * values typed (`60000` and `6e4` are one number, `true` and `!0` one boolean, "60000" a string).
 */
export function specKey(options: Readonly<Record<string, SpecValue>>): string {
  return JSON.stringify(
    Object.keys(options)
      .sort()
      .map((name) => [name, typeof options[name], options[name]]),
  );
}

/** `{ site: "…", lockTime: 6e4, fencing: !0 }` as values; undefined when a property is not a plain literal. */
function literalObject(tsApi: typeof ts, object: ts.ObjectLiteralExpression): Record<string, SpecValue> | undefined {
  const options: Record<string, SpecValue> = {};
  for (const property of object.properties) {
    if (!tsApi.isPropertyAssignment(property)) return undefined;
    const name = propertyName(tsApi, property.name);
    const value = literalValue(tsApi, property.initializer);
    if (name === undefined || value === undefined) return undefined;
    // A repeated name: the last one is the value the object holds.
    options[name] = value;
  }
  return options;
}

function propertyName(tsApi: typeof ts, name: ts.PropertyName): string | undefined {
  if (tsApi.isIdentifier(name) || tsApi.isStringLiteral(name) || tsApi.isNoSubstitutionTemplateLiteral(name))
    return name.text;
  if (tsApi.isComputedPropertyName(name) && tsApi.isStringLiteralLike(name.expression)) return name.expression.text;
  return undefined;
}

/**
 * A literal as JavaScript reads it: strings and templates without substitutions, numbers in any
 * notation (`6e4`, `0xea60`, `1_000`), true/false and the minifiers' `!0`/`!1`, a negated number.
 */
function literalValue(tsApi: typeof ts, expression: ts.Expression): SpecValue | undefined {
  if (tsApi.isParenthesizedExpression(expression)) return literalValue(tsApi, expression.expression);
  if (tsApi.isStringLiteralLike(expression)) return expression.text;
  if (tsApi.isNumericLiteral(expression)) {
    const value = Number(expression.text.replace(/_/g, ''));
    return Number.isNaN(value) ? undefined : value;
  }
  if (expression.kind === tsApi.SyntaxKind.TrueKeyword) return true;
  if (expression.kind === tsApi.SyntaxKind.FalseKeyword) return false;
  if (tsApi.isPrefixUnaryExpression(expression)) {
    const operand = literalValue(tsApi, expression.operand);
    if (operand === undefined) return undefined;
    if (expression.operator === tsApi.SyntaxKind.ExclamationToken) return !operand;
    if (expression.operator === tsApi.SyntaxKind.MinusToken && typeof operand === 'number') return -operand;
  }
  return undefined;
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
