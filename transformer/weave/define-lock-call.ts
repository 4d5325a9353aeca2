// The hoisted `const pay_lock_1 = lockweave_1.defineLock({ site, businessFlag, ...options })`.
// Only options the tag or the plugin set are written, so runtime defaults stay in one place.
// Every value is a literal built by the factory from checked data.
import type * as ts from 'typescript';
import type { LockPlan } from '../check/analyse';
import { OPTION_NAMES } from '../check/attributes';

export function defineLockStatement(
  factory: ts.NodeFactory,
  tsApi: typeof ts,
  runtime: ts.Identifier,
  lockName: ts.Identifier,
  plan: LockPlan,
): ts.Statement {
  return factory.createVariableStatement(
    undefined,
    factory.createVariableDeclarationList(
      [factory.createVariableDeclaration(lockName, undefined, undefined, defineLockCall(factory, runtime, plan))],
      tsApi.NodeFlags.Const,
    ),
  );
}

/** `R.defineLock({ site, businessFlag, ...options })`: what the hoisted statement binds (woven-shape.ts compares against it). */
export function defineLockCall(factory: ts.NodeFactory, runtime: ts.Identifier, plan: LockPlan): ts.CallExpression {
  const properties = [
    property(factory, 'site', factory.createStringLiteral(plan.target.site)),
    property(factory, 'businessFlag', factory.createStringLiteral(plan.businessFlag)),
    ...OPTION_NAMES.filter((name) => plan.options[name] !== undefined).map((name) =>
      property(factory, name, literal(factory, plan.options[name]!)),
    ),
  ];
  return factory.createCallExpression(factory.createPropertyAccessExpression(runtime, 'defineLock'), undefined, [
    factory.createObjectLiteralExpression(properties, false),
  ]);
}

function property(factory: ts.NodeFactory, name: string, value: ts.Expression): ts.PropertyAssignment {
  return factory.createPropertyAssignment(factory.createIdentifier(name), value);
}

function literal(factory: ts.NodeFactory, value: string | number | boolean): ts.Expression {
  if (typeof value === 'string') return factory.createStringLiteral(value);
  if (typeof value === 'number') return factory.createNumericLiteral(value);
  return value ? factory.createTrue() : factory.createFalse();
}
