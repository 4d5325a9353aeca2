// weave/ on the tspc route: the plans of check/ written into the file's AST, printed. The contract:
// one import of the runtime and one defineLock() per locked method, hoisted to the top of the
// module (a lock is defined once, not per call); the body becomes acquire / try / finally around an
// async arrow holding the original statements; a refused function's body becomes a throw of its error.
import test from 'ava';
import { tsApi } from '../../helpers/in-memory-program';
import { syntaxErrors, wovenByTspcRoute } from './woven';

const ORDERS = `import { helper } from './helper';
export class OrderService {
  /** @redisLock businessFlag=payOrder keyName=order.no lockTime=5000 */
  async pay(order: { no: string }): Promise<string> {
    const x = helper();
    return order.no + x;
  }

  /** @redisLock businessFlag=ship keyName=a,b */
  async ship(a: string, b: number): Promise<void> { void a; void b; }

  async plain(): Promise<void> {}
}
`;

/** The printed file's lines, trimmed, without blank ones. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

test('the runtime import and each defineLock() are hoisted after the imports, before the class, with literal options', (t) => {
  const { analysis, text } = wovenByTspcRoute(ORDERS);
  t.deepEqual(analysis.errors, []);
  t.deepEqual(lines(text).slice(0, 5), [
    "import { helper } from './helper';",
    'const lockweave_1 = require("lockweave/runtime");',
    'const pay_lock_1 = lockweave_1.defineLock({ site: "OrderService.pay", businessFlag: "payOrder", lockTime: 5000000 });',
    'const ship_lock_1 = lockweave_1.defineLock({ site: "OrderService.ship", businessFlag: "ship" });',
    'export class OrderService {',
  ]);
  t.deepEqual(syntaxErrors(text), []);
});

test('an ES module imports the runtime as a namespace', (t) => {
  const { text } = wovenByTspcRoute(ORDERS, tsApi.ModuleKind.ES2022);
  t.true(lines(text).includes('import * as lockweave_1 from "lockweave/runtime";'), text);
});

test('a locked body is acquire, then try { return await lease.run(async arrow holding the original statements) } finally { release }; composite keys use acquireComposite', (t) => {
  const { text } = wovenByTspcRoute(ORDERS);
  const body = lines(text);
  const pay = body.indexOf('const lease_1 = await pay_lock_1.acquire(order?.no);');
  t.true(pay > 0, text);
  t.deepEqual(body.slice(pay + 1, pay + 10), [
    'try {',
    'return await lease_1.run(async () => {',
    'const x = helper();',
    'return order.no + x;',
    '});',
    '}',
    'finally {',
    'await lease_1.release();',
    '}',
  ]);
  t.true(body.includes('const lease_1 = await ship_lock_1.acquireComposite([a, b]);'), text);
  t.true(body.includes('async plain(): Promise<void> { }'), 'an untagged method is left as it was');
});

test("a tag without keyName acquires the business flag's own lock: acquireKeyless()", (t) => {
  const { analysis, text } = wovenByTspcRoute(
    'export class Jobs {\n  /** @redisLock businessFlag=nightly */\n  async report(): Promise<void> {}\n}\n',
  );
  t.deepEqual(analysis.errors, []);
  t.deepEqual(analysis.plans[0]?.keys, []);
  t.regex(text, /const lease_1 = await report_lock_1\.acquireKeyless\(\);\s*try \{/);
});

test('keyNames: each key a lock of its own, acquireEach([a, b]) for several paths, acquireEach(list) for one list', (t) => {
  const { analysis, text } = wovenByTspcRoute(
    'export class Bank {\n  /** @redisLock businessFlag=account keyNames=from.id,to.id */\n  async transfer(from: { id: string }, to: { id: string }): Promise<void> { void from; void to; }\n\n  /** @redisLock businessFlag=stock keyNames=skus */\n  async reserve(skus: readonly string[]): Promise<void> { void skus; }\n}\n',
  );
  t.deepEqual(analysis.errors, []);
  t.true(analysis.plans.every((plan) => plan.separateKeys));
  t.regex(text, /const lease_1 = await transfer_lock_1\.acquireEach\(\[from\?\.id, to\?\.id\]\);\s*try \{/);
  t.regex(text, /const lease_1 = await reserve_lock_1\.acquireEach\(skus\);\s*try \{/);
});

test("signal=<path>: the AbortSignal is acquire's third argument, read with ?. as a key is; undefined keeps the class's place", (t) => {
  const { analysis, text } = wovenByTspcRoute(
    'class Busy extends Error {}\nexport class S {\n  /** @redisLock businessFlag=a keyName=no signal=options.signal */\n  async a(no: string, options: { signal?: AbortSignal }): Promise<void> { void no; void options; }\n\n  /** @redisLock businessFlag=b keyName=no onFail=Busy signal=signal */\n  async b(no: string, signal: AbortSignal): Promise<void> { void no; void signal; }\n}\n',
  );
  t.deepEqual(analysis.errors, []);
  t.regex(text, /const lease_1 = await a_lock_1\.acquire\(no, undefined, options\?\.signal\);/);
  t.regex(text, /const lease_1 = await b_lock_1\.acquire\(no, Busy, signal\);/);
});

test('onFail=skip: a busy lock returns undefined before the try, without running the body', (t) => {
  const { text } = wovenByTspcRoute(
    'export class S {\n  /** @redisLock businessFlag=ship keyName=no onFail=skip */\n  async ship(no: string): Promise<string | undefined> { return no; }\n}\n',
  );
  t.regex(text, /const lease_1 = await ship_lock_1\.acquire\(no\);\s*if \(!lease_1\)\s*return undefined;\s*try \{/);
});

test('a method that returns a Promise without async stays so: the same statements run in an async arrow it returns', (t) => {
  const { text } = wovenByTspcRoute(
    'export class S {\n  /** @redisLock businessFlag=cancel keyName=no */\n  cancel(no: string): Promise<string> { return Promise.resolve(no); }\n}\n',
  );
  t.regex(
    text,
    /cancel\(no: string\): Promise<string> \{\s*return \(async \(\) => \{\s*const lease_1 = await cancel_lock_1\.acquire\(no\);\s*try \{\s*return await lease_1\.run\(async \(\) => \{\s*return Promise\.resolve\(no\);\s*\}\);\s*\}\s*finally \{\s*await lease_1\.release\(\);\s*\}\s*\}\)\(\);\s*\}/,
  );
});

test('a refused function throws its error, a string literal; the file gets no runtime import for it', (t) => {
  const { analysis, text } = wovenByTspcRoute(
    'export class S {\n  /** @redisLock businessFlag=a keyName=nope */\n  async m(x: string): Promise<void> { void x; }\n}\n',
  );
  t.is(analysis.errors.length, 1);
  t.regex(
    text,
    /async m\(x: string\): Promise<void> \{\s*throw new Error\("@redisLock: keyName[^"]*\(this function was not compiled with its lock; fix the tag and rebuild\)"\);\s*\}/,
  );
  t.notRegex(text, /lockweave\/runtime|defineLock/);
});
