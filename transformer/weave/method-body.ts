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
//
// A method that is not `async` but returns a Promise stays so, and returns run()'s promise. Its
// caller expects every failure as a rejection, but the arguments of run() are evaluated before
// run() can catch anything — a getter on the key's path or bad JSON text throws right there — so
// its call stands in a try whose catch returns the error as a rejected promise:
//
//   try { return cancel_lock_1.run(orderNo, async () => { ... }); }
//   catch (error) { return Promise.reject(error); }
//
// An async method needs no such guard (a throw there already rejects) and gets none: its shape,
// and its cost per call, stay the one call.
import type * as ts from 'typescript';
import type { LockPlan } from '../check/analyse';
import { keyExpression } from './key-expression';
import { prologueLength } from './runtime-import';

/** `pay_lock_1.run(key, <body>[, OnFailClass])`, or runComposite([a, b], ...) for a composite key. */
export function runCall(
  factory: ts.NodeFactory,
  tsApi: typeof ts,
  runtime: ts.Identifier,
  lockName: ts.Identifier,
  failureClass: ts.Expression | undefined,
  plan: LockPlan,
  body: ts.Expression,
): ts.CallExpression {
  const keys = plan.keys.map((key) => keyExpression(factory, tsApi, runtime, key));
  const composite = plan.keys.length > 1;
  return factory.createCallExpression(
    factory.createPropertyAccessExpression(lockName, composite ? 'runComposite' : 'run'),
    undefined,
    [
      composite ? factory.createArrayLiteralExpression(keys, false) : keys[0],
      body,
      ...(failureClass ? [failureClass] : []),
    ],
  );
}

/** `return <call>;` — inside the try above when the target is not `async`. */
export function lockedStatement(
  factory: ts.NodeFactory,
  tsApi: typeof ts,
  plan: LockPlan,
  call: ts.Expression,
): ts.Statement {
  const returned = factory.createReturnStatement(call);
  if ((tsApi.getCombinedModifierFlags(plan.target.node) & tsApi.ModifierFlags.Async) !== 0) return returned;
  const error = factory.createIdentifier('error');
  const rejected = factory.createCallExpression(
    factory.createPropertyAccessExpression(factory.createIdentifier('Promise'), 'reject'),
    undefined,
    [error],
  );
  return factory.createTryStatement(
    factory.createBlock([returned], true),
    factory.createCatchClause(
      factory.createVariableDeclaration(error),
      factory.createBlock([factory.createReturnStatement(rejected)], true),
    ),
    undefined,
  );
}

export function lockedBody(
  context: ts.TransformationContext,
  tsApi: typeof ts,
  runtime: ts.Identifier,
  lockName: ts.Identifier,
  failureClass: ts.Expression | undefined,
  plan: LockPlan,
  body: ts.Block,
): ts.Block {
  const factory = context.factory;
  const prologue = body.statements.slice(0, prologueLength(tsApi, body.statements));
  const bodyArrow = factory.createArrowFunction(
    [factory.createModifier(tsApi.SyntaxKind.AsyncKeyword)],
    undefined,
    [],
    undefined,
    factory.createToken(tsApi.SyntaxKind.EqualsGreaterThanToken),
    tsApi.setTextRange(factory.createBlock(body.statements.slice(prologue.length), true), body),
  );
  const woven = [
    ...prologue,
    lockedStatement(factory, tsApi, plan, runCall(factory, tsApi, runtime, lockName, failureClass, plan, bodyArrow)),
  ];
  return tsApi.setOriginalNode(tsApi.setTextRange(factory.createBlock(woven, true), body), body);
}
