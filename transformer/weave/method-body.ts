// The locked body:
//
//   const lease_1 = await pay_lock_1.acquire(order?.orderNo[, OnFailClass]);
//   if (lease_1 === undefined) return undefined;      // onFail=skip only
//   lease_1.enter();
//   try { <original statements, each `return x` as `return await x`> }
//   finally { await lease_1.release(); }
//
// Nothing is wrapped in a closure, so `this`, `arguments` and `super` keep their meaning.
import type * as ts from 'typescript';
import type { LockPlan } from '../check/analyse';
import { keyExpression } from './key-expression';
import { isPrologue } from './runtime-import';

export function lockedBody(
  context: ts.TransformationContext, tsApi: typeof ts, runtime: ts.Identifier, lockName: ts.Identifier,
  failureClass: ts.Expression | undefined, plan: LockPlan, body: ts.Block,
): ts.Block {
  const factory = context.factory;
  const lease = factory.createUniqueName('lease');
  const keys = plan.keys.map((key) => keyExpression(factory, tsApi, runtime, key));
  const acquire = plan.keys.length === 1
    ? factory.createCallExpression(factory.createPropertyAccessExpression(lockName, 'acquire'), undefined, [keys[0], ...(failureClass ? [failureClass] : [])])
    : factory.createCallExpression(factory.createPropertyAccessExpression(lockName, 'acquireComposite'), undefined, [factory.createArrayLiteralExpression(keys, false), ...(failureClass ? [failureClass] : [])]);
  const prologue = body.statements.filter((s, i) => isPrologue(tsApi, s) && body.statements.slice(0, i).every((p) => isPrologue(tsApi, p)));
  const statements = body.statements.slice(prologue.length).map((s) => returnsAwaited(context, tsApi, s));
  const skip = plan.options.onFail === 'skip' && !plan.onFailClass;
  const woven = [
    ...prologue,
    factory.createVariableStatement(undefined, factory.createVariableDeclarationList(
      [factory.createVariableDeclaration(lease, undefined, undefined, factory.createAwaitExpression(acquire))], tsApi.NodeFlags.Const)),
    ...(skip ? [factory.createIfStatement(
      factory.createStrictEquality(lease, factory.createIdentifier('undefined')),
      factory.createReturnStatement(factory.createIdentifier('undefined')))] : []),
    factory.createExpressionStatement(factory.createCallExpression(factory.createPropertyAccessExpression(lease, 'enter'), undefined, [])),
    factory.createTryStatement(
      tsApi.setTextRange(factory.createBlock(statements, true), body),
      undefined,
      factory.createBlock([factory.createExpressionStatement(factory.createAwaitExpression(
        factory.createCallExpression(factory.createPropertyAccessExpression(lease, 'release'), undefined, [])))], true),
    ),
  ];
  return tsApi.setOriginalNode(tsApi.setTextRange(factory.createBlock(woven, true), body), body);
}

/**
 * `return x` → `return await x` in the method's own body. Without the await, `finally` would
 * release the lock as soon as the promise is returned, before it settles — the locked work would
 * then run unlocked. Nested functions and classes have their own returns and are left alone.
 */
function returnsAwaited<T extends ts.Node>(context: ts.TransformationContext, tsApi: typeof ts, node: T): T {
  const factory = context.factory;
  const visit = (n: ts.Node): ts.Node => {
    if (tsApi.isFunctionLike(n) || tsApi.isClassLike(n)) return n;
    if (tsApi.isReturnStatement(n) && n.expression && !tsApi.isAwaitExpression(n.expression)) {
      return factory.updateReturnStatement(n, factory.createAwaitExpression(tsApi.visitNode(n.expression, visit) as ts.Expression));
    }
    return tsApi.visitEachChild(n, visit, context);
  };
  return visit(node) as T;
}
