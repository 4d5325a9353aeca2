// The locked body:
//
//   const lease_1 = await pay_lock_1.acquire(order?.orderNo[, OnFailClass]);
//   if (lease_1 === undefined) return undefined;      // onFail=skip only
//   try {
//     return await lease_1.run(async () => { <original statements> });
//   }
//   finally {
//     await lease_1.release();
//   }
//
// Why the body moves into an async arrow: reentrancy needs the held key in the body's async
// context, and AsyncLocalStorage.run(store, fn) is the only way to scope a context exactly to
// `fn` and what it starts (enterWith leaks into other chains through promise resolution; see
// runtime/lock/held-locks.ts). An arrow has no `this`, `arguments`, `super` or `new.target` of
// its own, so the original statements keep their meaning. And the arrow's promise settles only
// when what the body returns settles, so the lock is held until a returned promise is done.
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
  const failureArgs = failureClass ? [failureClass] : [];
  const acquire = plan.keys.length === 1
    ? factory.createCallExpression(factory.createPropertyAccessExpression(lockName, 'acquire'), undefined, [keys[0], ...failureArgs])
    : factory.createCallExpression(factory.createPropertyAccessExpression(lockName, 'acquireComposite'), undefined, [factory.createArrayLiteralExpression(keys, false), ...failureArgs]);
  const prologue = body.statements.filter((s, i) => isPrologue(tsApi, s) && body.statements.slice(0, i).every((p) => isPrologue(tsApi, p)));
  const statements = body.statements.slice(prologue.length);
  const skip = plan.options.onFail === 'skip' && !plan.onFailClass;
  const bodyArrow = factory.createArrowFunction(
    [factory.createModifier(tsApi.SyntaxKind.AsyncKeyword)], undefined, [], undefined,
    factory.createToken(tsApi.SyntaxKind.EqualsGreaterThanToken),
    tsApi.setTextRange(factory.createBlock(statements, true), body),
  );
  const woven = [
    ...prologue,
    factory.createVariableStatement(undefined, factory.createVariableDeclarationList(
      [factory.createVariableDeclaration(lease, undefined, undefined, factory.createAwaitExpression(acquire))], tsApi.NodeFlags.Const)),
    ...(skip ? [factory.createIfStatement(
      factory.createStrictEquality(lease, factory.createIdentifier('undefined')),
      factory.createReturnStatement(factory.createIdentifier('undefined')))] : []),
    factory.createTryStatement(
      factory.createBlock([factory.createReturnStatement(factory.createAwaitExpression(
        factory.createCallExpression(factory.createPropertyAccessExpression(lease, 'run'), undefined, [bodyArrow])))], true),
      undefined,
      factory.createBlock([factory.createExpressionStatement(factory.createAwaitExpression(
        factory.createCallExpression(factory.createPropertyAccessExpression(lease, 'release'), undefined, [])))], true),
    ),
  ];
  return tsApi.setOriginalNode(tsApi.setTextRange(factory.createBlock(woven, true), body), body);
}
