// The key argument of run(): `order?.orderNo`, `map?.get("orderNo")`,
// `lockweave_1.readJsonField(json, "orderNo")`, `lockweave_1.readField(holder, "orderNo")`. Optional chaining on every hop turns a missing
// object into an undefined key, which the runtime rejects with LockKeyError before the body runs.
import type * as ts from 'typescript';
import type { KeyAccess } from '../check/key-path';
import { IDENTIFIER } from '../check/values';

export function keyExpression(
  factory: ts.NodeFactory,
  tsApi: typeof ts,
  runtime: ts.Identifier,
  key: KeyAccess,
): ts.Expression {
  const chain = () => factory.createToken(tsApi.SyntaxKind.QuestionDotToken);
  let expression: ts.Expression = factory.createIdentifier(key.parameter);
  for (const name of key.properties) expression = factory.createPropertyAccessChain(expression, chain(), name);
  const field = key.field;
  switch (field.kind) {
    case 'none':
      return expression;
    case 'property':
      return IDENTIFIER.test(field.name)
        ? factory.createPropertyAccessChain(expression, chain(), field.name)
        : factory.createElementAccessChain(expression, chain(), factory.createStringLiteral(field.name));
    case 'map-get':
      return factory.createCallChain(
        factory.createPropertyAccessChain(expression, chain(), 'get'),
        undefined,
        undefined,
        [factory.createStringLiteral(field.name)],
      );
    case 'json-text':
    case 'at-run-time': {
      const reader = field.kind === 'json-text' ? 'readJsonField' : 'readField';
      return factory.createCallExpression(factory.createPropertyAccessExpression(runtime, reader), undefined, [
        expression,
        factory.createStringLiteral(field.name),
      ]);
    }
  }
}
