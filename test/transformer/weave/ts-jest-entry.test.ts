// lockweave/ts-jest in process, as ts-jest calls it: factory(compiler) for each emit. With no
// program (ts.transpileModule: isolatedModules on a CommonJS module kind) it weaves from a program
// of the file alone; handed output it already wove — ts-patch's compiler running the tsconfig entry
// in the same emit — it leaves it as it is: one defineLock() per method, never two.
import test from 'ava';
import type * as ts from 'typescript';
import { factory } from '../../../transformer/routes/ts-jest';
import { tsApi } from '../../helpers/in-memory-program';

const SOURCE = `export class OrderService {
  /** @redisLock businessFlag=payOrder keyName=orderNo */
  async pay(orderNo: string): Promise<string> { return orderNo; }
}
`;

const compiler = { configSet: { compilerModule: tsApi, parsedTsConfig: { options: {} } } };

function transpile(before: ts.TransformerFactory<ts.SourceFile>[]): string {
  return tsApi.transpileModule(SOURCE, {
    fileName: '/virtual/order.ts',
    compilerOptions: { module: tsApi.ModuleKind.CommonJS, target: tsApi.ScriptTarget.ES2022 },
    transformers: { before },
  }).outputText;
}

const count = (text: string, what: string) => text.split(what).length - 1;

test('without a program from ts-jest, the file is woven: one defineLock and the acquire around the body', (t) => {
  const out = transpile([factory(compiler)]);
  t.is(count(out, '.defineLock('), 1, out);
  t.regex(out, /require\("lockweave\/runtime"\)/);
  t.regex(out, /try \{/);
});

test('two lockweave entries in one emit weave each method once', (t) => {
  const out = transpile([factory(compiler), factory(compiler)]);
  t.is(count(out, '.defineLock('), 1, out);
  t.is(count(out, 'require("lockweave/runtime")'), 1, out);
});

test('a bad tag throws file:line:col, and an option of its own is refused', (t) => {
  const bad = SOURCE.replace('businessFlag', 'bussinessFlag');
  const error = t.throws(() =>
    tsApi.transpileModule(bad, { fileName: '/virtual/order.ts', transformers: { before: [factory(compiler)] } }),
  );
  t.regex(error!.message, /^\/virtual\/order\.ts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag/);
  t.throws(() => factory(compiler, { prefix: 'SHOP_' }), { message: /lockweave\/ts-jest takes no options/ });
});
