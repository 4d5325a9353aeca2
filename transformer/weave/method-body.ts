// The locked body — one runtime call around the original statements:
//
//   return pay_lock_1.run(order?.orderNo, async () => { <original statements> }[, OnFailClass]);
//
// run() takes the lock, runs the arrow holding it, and releases it in a `finally` when the
// arrow's promise settles (runtime/api/define-lock.ts); with onFail=skip and the lock busy it
// resolves undefined. The same shape is written by the tspc route (here, as AST) and by the
// bundler and loader routes (weave-text.ts, as text), so every route's output reads alike.
//
// Why the body moves into an async arrow: reentrancy needs the held key in the body's async
// context, and AsyncLocalStorage.run(store, fn) is the only way to scope a context exactly to
// `fn` and what it starts (enterWith leaks into other chains through promise resolution; see
// runtime/lock/held-locks.ts). An arrow has no `this`, `arguments`, `super` or `new.target` of
// its own, so the original statements keep their meaning. And the arrow's promise settles only
// when what the body returns settles, so the lock is held until a returned promise is done.
// A method that is not `async` but returns a Promise stays as it is: it returns run()'s promise.
import type * as ts from 'typescript';
import type { LockPlan } from '../check/analyse';
import { keyExpression } from './key-expression';
import { prologueLength } from './runtime-import';

/** `pay_lock_1.run(key, <body>[, OnFailClass])`, or runComposite([a, b], ...) for a composite key. */
export function runCall(
  factory: ts.NodeFactory, tsApi: typeof ts, runtime: ts.Identifier, lockName: ts.Identifier,
  failureClass: ts.Expression | undefined, plan: LockPlan, body: ts.Expression,
): ts.CallExpression {
  const keys = plan.keys.map((key) => keyExpression(factory, tsApi, runtime, key));
  const composite = plan.keys.length > 1;
  return factory.createCallExpression(
    factory.createPropertyAccessExpression(lockName, composite ? 'runComposite' : 'run'),
    undefined,
    [composite ? factory.createArrayLiteralExpression(keys, false) : keys[0], body, ...(failureClass ? [failureClass] : [])],
  );
}

export function lockedBody(
  context: ts.TransformationContext, tsApi: typeof ts, runtime: ts.Identifier, lockName: ts.Identifier,
  failureClass: ts.Expression | undefined, plan: LockPlan, body: ts.Block,
): ts.Block {
  const factory = context.factory;
  const prologue = body.statements.slice(0, prologueLength(tsApi, body.statements));
  const bodyArrow = factory.createArrowFunction(
    [factory.createModifier(tsApi.SyntaxKind.AsyncKeyword)], undefined, [], undefined,
    factory.createToken(tsApi.SyntaxKind.EqualsGreaterThanToken),
    tsApi.setTextRange(factory.createBlock(body.statements.slice(prologue.length), true), body),
  );
  const woven = [...prologue, factory.createReturnStatement(runCall(factory, tsApi, runtime, lockName, failureClass, plan, bodyArrow))];
  return tsApi.setOriginalNode(tsApi.setTextRange(factory.createBlock(woven, true), body), body);
}
