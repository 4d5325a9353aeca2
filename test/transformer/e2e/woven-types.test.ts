// The text routes hand woven TypeScript to tools that type-check it (ts-loader, a vitest
// typecheck): it must type-check under `strict` as the user's own source did. The lease a
// non-skipping lock's acquire() resolves is typed as there (runtime/api/define-lock.ts SkippedBy),
// so `lease_1.run(…)` needs no `!`, and a skipping tag's `return undefined` stands in a method that
// says it may resolve undefined.
import test from 'ava';
import * as path from 'node:path';
import * as ts from 'typescript';
import { ROOT } from '../../helpers/fixture-projects';
import { OPTIONS, programOf } from '../../helpers/in-memory-program';

const { weaveSource } =
  require('../../../dist/transformer/weave-source') as typeof import('../../../transformer/weave-source');

const SOURCE = `class Refused extends Error {}
export class Orders {
  /** @redisLock businessFlag=pay keyName=orderNo */
  async pay(orderNo: string): Promise<string> { return orderNo; }

  /** @redisLock businessFlag=merge keyName=a,b onFail=Refused */
  async merge(a: string, b: number): Promise<number> {
    return b + a.length;
  }

  /** @redisLock businessFlag=cancel keyName=order.no */
  cancel(order: { no: string }): Promise<boolean> { return Promise.resolve(order.no !== ''); }

  /** @redisLock businessFlag=ship keyName=orderNo onFail=skip */
  async ship(orderNo: string): Promise<string | undefined> { return orderNo; }
}
export const paid: Promise<string> = new Orders().pay('A1');
export const merged: Promise<number> = new Orders().merge('A1', 2);
`;

test('the text route writes TypeScript that type-checks under strict as the source did: async, composite with an onFail class, a Promise method, onFail=skip', (t) => {
  const file = path.join(ROOT, 'test', '.tmp', 'woven-types', 'orders.ts');
  const woven = weaveSource(file, SOURCE);
  t.deepEqual(woven.errors, []);
  t.is(woven.woven, 4, woven.code);
  const options: ts.CompilerOptions = {
    ...OPTIONS,
    types: ['node'],
    baseUrl: ROOT,
    paths: { 'lockweave/runtime': ['runtime/index.ts'] },
  };
  const program = programOf({ [file]: woven.code }, ts.JSDocParsingMode.ParseForTypeErrors, options);
  const source = program.getSourceFile(file)!;
  const problems = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
    (diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  );
  t.deepEqual(problems, [], woven.code);
});
