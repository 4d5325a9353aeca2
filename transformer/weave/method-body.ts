// The locked body: the acquire / try / finally the product promises, written into the method:
//
//   const lease_1 = await pay_lock_1.acquire(order?.orderNo);      // acquireComposite([a, b]); acquireKeyless() without keyName; acquireEach([a, b]) for keyNames; `, OnFailClass` when the tag names one, `, options?.signal` after it for signal=
//   if (!lease_1) return undefined;                                 // onFail=skip only: the lock was busy, the body does not run
//   try {
//       return await lease_1.run(async () => { <original statements> });
//   } finally {
//       await lease_1.release();
//   }
//
// acquire() takes the lock (the atomic attempt, the wait, the retry schedule, onFail) and resolves
// the lease; release() is token-checked and never throws, so the body's own outcome reaches the
// caller unchanged. onFail is the tag's or the plugin's (configure() cannot set it), so whether the
// skip line is there is known here. The same statements are written by the tspc route (here, as
// AST) and by the bundler and loader routes (weave-text.ts, as text), and woven-shape.ts compares
// against them: every route's output reads alike.
//
// Why the body still moves into an async arrow: reentrancy needs the held key in the body's async
// context, and AsyncLocalStorage.run(store, fn) is the only way to scope a context exactly to
// `fn` and what it starts (enterWith leaks into other chains through promise resolution; see
// runtime/lock/held-locks.ts). An arrow has no `this`, `arguments`, `super` or `new.target` of
// its own, so the original statements keep their meaning. And `return await` holds the lock until
// what the body returns has settled: a returned promise is covered to its end.
//
// The lease's name is fresh in the file (weave-text.ts's FreshNames; a generated name here), so it
// never shadows a name the body uses, and the body never names it.
//
// A method that is not `async` but returns a Promise stays so: the same statements run in an async
// arrow it calls and returns, `return (async () => { … })();`. Its caller expects every failure
// as a rejection, and the key's evaluation (a getter on the key's path, bad JSON text) is inside.
import type * as ts from 'typescript';
import type { LockPlan } from '../check/analyse';
import { keyExpression } from './key-expression';
import { prologueLength } from './runtime-import';

/** The names and parts a locked body is written from. */
export interface LockedBodyParts {
  readonly runtime: ts.Identifier;
  readonly lockName: ts.Identifier;
  /** The lease's binding: one fresh name per file. */
  readonly leaseName: ts.Identifier;
  readonly failureClass: ts.Expression | undefined;
  readonly plan: LockPlan;
}

/** True when the tag's function is `async` (else it returns a Promise and gets the async arrow). */
export function isAsync(tsApi: typeof ts, plan: LockPlan): boolean {
  return (tsApi.getCombinedModifierFlags(plan.target.node) & tsApi.ModifierFlags.Async) !== 0;
}

/** The statements that replace the body's own (after its prologue), around the arrow `body`. */
export function lockedStatements(
  factory: ts.NodeFactory,
  tsApi: typeof ts,
  parts: LockedBodyParts,
  body: ts.ArrowFunction,
): ts.Statement[] {
  const { leaseName: lease, plan } = parts;
  const statements = [
    constStatement(factory, tsApi, lease, factory.createAwaitExpression(acquireCall(factory, tsApi, parts))),
    ...(plan.options.onFail === 'skip'
      ? [
          factory.createIfStatement(
            factory.createPrefixUnaryExpression(tsApi.SyntaxKind.ExclamationToken, lease),
            factory.createReturnStatement(factory.createIdentifier('undefined')),
          ),
        ]
      : []),
    factory.createTryStatement(
      factory.createBlock(
        [factory.createReturnStatement(factory.createAwaitExpression(call(factory, lease, 'run', [body])))],
        true,
      ),
      undefined,
      factory.createBlock(
        [factory.createExpressionStatement(factory.createAwaitExpression(call(factory, lease, 'release', [])))],
        true,
      ),
    ),
  ];
  if (isAsync(tsApi, plan)) return statements;
  const run = factory.createArrowFunction(
    [factory.createModifier(tsApi.SyntaxKind.AsyncKeyword)],
    undefined,
    [],
    undefined,
    factory.createToken(tsApi.SyntaxKind.EqualsGreaterThanToken),
    factory.createBlock(statements, true),
  );
  return [
    factory.createReturnStatement(
      factory.createCallExpression(factory.createParenthesizedExpression(run), undefined, []),
    ),
  ];
}

/**
 * `pay_lock_1.acquire(key[, OnFailClass])`; acquireComposite([a, b], …) for a composite key;
 * acquireKeyless(…) for a tag without keyName (one lock per businessFlag); acquireEach(…) for keyNames.
 */
function acquireCall(factory: ts.NodeFactory, tsApi: typeof ts, parts: LockedBodyParts): ts.CallExpression {
  const { runtime, lockName, failureClass, plan } = parts;
  const keys = plan.keys.map((key) => keyExpression(factory, tsApi, runtime, key));
  // The failure class, then the signal (its path as `?.` accesses, like a key's), `undefined` holding the class's place.
  const signal = plan.signal && keyExpression(factory, tsApi, runtime, plan.signal);
  const failure = signal
    ? [failureClass ?? factory.createIdentifier('undefined'), signal]
    : failureClass
      ? [failureClass]
      : [];
  if (keys.length === 0) return call(factory, lockName, 'acquireKeyless', failure);
  if (plan.separateKeys) {
    // keyNames: `acquireEach(list)` for one path naming a list, `acquireEach([a, b])` for several.
    const values = keys.length === 1 ? keys[0] : factory.createArrayLiteralExpression(keys, false);
    return call(factory, lockName, 'acquireEach', [values, ...failure]);
  }
  if (keys.length === 1) return call(factory, lockName, 'acquire', [keys[0], ...failure]);
  return call(factory, lockName, 'acquireComposite', [factory.createArrayLiteralExpression(keys, false), ...failure]);
}

function call(
  factory: ts.NodeFactory,
  object: ts.Identifier,
  method: string,
  args: ts.Expression[],
): ts.CallExpression {
  return factory.createCallExpression(factory.createPropertyAccessExpression(object, method), undefined, args);
}

function constStatement(
  factory: ts.NodeFactory,
  tsApi: typeof ts,
  name: ts.Identifier,
  value: ts.Expression,
): ts.Statement {
  return factory.createVariableStatement(
    undefined,
    factory.createVariableDeclarationList(
      [factory.createVariableDeclaration(name, undefined, undefined, value)],
      tsApi.NodeFlags.Const,
    ),
  );
}

/** `async () => <block>`: the arrow the body runs in. */
export function asyncArrow(factory: ts.NodeFactory, tsApi: typeof ts, block: ts.Block): ts.ArrowFunction {
  return factory.createArrowFunction(
    [factory.createModifier(tsApi.SyntaxKind.AsyncKeyword)],
    undefined,
    [],
    undefined,
    factory.createToken(tsApi.SyntaxKind.EqualsGreaterThanToken),
    block,
  );
}

/** The tspc route's locked body: the prologue, then the statements above around the original ones. */
export function lockedBody(
  context: ts.TransformationContext,
  tsApi: typeof ts,
  parts: LockedBodyParts,
  body: ts.Block,
): ts.Block {
  const factory = context.factory;
  const prologue = body.statements.slice(0, prologueLength(tsApi, body.statements));
  const original = tsApi.setTextRange(factory.createBlock(body.statements.slice(prologue.length), true), body);
  const woven = [...prologue, ...lockedStatements(factory, tsApi, parts, asyncArrow(factory, tsApi, original))];
  return tsApi.setOriginalNode(tsApi.setTextRange(factory.createBlock(woven, true), body), body);
}
