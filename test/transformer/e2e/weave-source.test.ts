// The text route's core, weaveSource(), in process: the same analysis as tspc without a type
// checker. Each promise here is one the bundler, loader and jest routes inherit.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { HAND_WRITTEN } from '../../fixtures/faults/compile-corpus';
import { FIXTURES, TMP, linkPackage } from '../../helpers/fixture-projects';

// The compiled core, as the routes load it.
const { weaveSource, lockedSitesOf, LockweaveBuildError, assertNoErrors } =
  require('../../../dist/transformer/weave-source') as typeof import('../../../transformer/weave-source');
const { sourceTransformer } = require('../../../dist/transformer/index') as typeof import('../../../transformer/index');
const ts6 = require('typescript6') as typeof ts;

test.before(() => linkPackage());

/** The corpus cases whose error only a type checker can see; `lockweave check` and tspc report them. */
const NEEDS_TYPES = new Set(['key-bad-path', 'key-object', 'key-array', 'key-date', 'key-function', 'onfail-function']);

test('every malformed tag that syntax can show is an error, and no function it stands on keeps its body', (t) => {
  for (const [index, badCase] of HAND_WRITTEN.entries()) {
    const marker = `BODY_${index}`;
    const source = (
      badCase.source ?? 'export class Svc {\n  TAG\n  async pay(orderNo: string): Promise<string> { return BODY; }\n}\n'
    )
      .replace('TAG', `/** @redisLock ${badCase.tag} */`)
      .replace(/BODY/g, JSON.stringify(marker));
    const result = weaveSource(`case-${badCase.name}.ts`, source);
    const woven = /await \w+_lock_\d+\.acquire(Composite)?\(/.test(result.code);
    if (NEEDS_TYPES.has(badCase.name)) {
      t.true(woven, `${badCase.name}: woven, its key read and checked at run time`);
      continue;
    }
    t.true(result.errors.length > 0, `${badCase.name} (${badCase.why}) is reported`);
    t.true(
      result.errors.every((e) => e.message.startsWith('@redisLock:') && e.line >= 1),
      badCase.name,
    );
    t.false(result.code.includes(marker) && !woven, `${badCase.name}: its body is never emitted unlocked`);
    t.throws(() => assertNoErrors(result), { instanceOf: LockweaveBuildError });
  }
});

test('an error names the file, line and column of the tag', (t) => {
  const result = weaveSource(
    'src/pay.ts',
    'export class Svc {\n  /** @redisLock bussinessFlag=pay keyName=orderNo */\n  async pay(orderNo: string) { return orderNo; }\n}\n',
  );
  t.is(result.errors.length, 1);
  t.is(
    result.errors[0].formatted,
    'src/pay.ts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag; did you mean businessFlag?',
  );
});

test('the woven text keeps every line where it was and matches its snapshot', (t) => {
  const file = path.join(FIXTURES, 'cjs', 'src', 'order-service.ts');
  const source = fs.readFileSync(file, 'utf8');
  const result = weaveSource('order-service.ts', source);
  t.deepEqual(result.errors, []);
  t.is(result.woven, 7);
  const before = source.split('\n');
  const after = result.code.split('\n');
  t.is(after.length, before.length);
  // Every line the weave did not touch is the same line, at the same number.
  const touched = after.filter((line, i) => line !== before[i]).length;
  t.true(touched <= 2 * result.woven + 1, `${touched} lines changed`);
  const snapshot = path.join(FIXTURES, 'source', 'order-service.woven.ts');
  if (process.env.UPDATE_SNAPSHOTS === '1') fs.writeFileSync(snapshot, result.code);
  t.is(result.code, fs.readFileSync(snapshot, 'utf8'), 'differs from its snapshot (UPDATE_SNAPSHOTS=1 to accept)');
  t.truthy(result.map?.mappings);
});

test('a file already woven is left alone, so two routes at once never lock twice', (t) => {
  const once = weaveSource(
    'a.ts',
    '/** @redisLock businessFlag=pay keyName=orderNo */\nexport async function pay(orderNo: string) { return orderNo; }\n',
  );
  t.is(once.woven, 1);
  const twice = weaveSource('a.ts', once.code);
  t.is(twice.woven, 0);
  t.is(twice.code, once.code);
});

test('a file woven twice (two routes at once) is woven once, whatever its first line holds', (t) => {
  const file = path.join(FIXTURES, 'cjs', 'src', 'order-service.ts');
  for (const name of ['order-service.ts', 'order-service.cts']) {
    const once = weaveSource(name, fs.readFileSync(file, 'utf8'));
    t.is(once.woven, 7, name);
    const twice = weaveSource(name, once.code);
    t.deepEqual(twice.errors, [], name);
    t.is(twice.woven, 0, name);
    t.is(twice.code, once.code, name);
    t.deepEqual(twice.locked, once.locked, `${name}: each method found locked, by its site`);
  }
});

test('text that quotes woven code — a comment, a string, a doc example — never stands for a lock', (t) => {
  const tagged =
    '/** @redisLock businessFlag=pay keyName=orderNo */\nexport async function pay(orderNo: string) { return orderNo; }\n';
  for (const quote of [
    '// woven: const pay_lock_1 = lockweave_1.defineLock({ site: "pay", businessFlag: "pay" });\n',
    'export const doc = \'lockweave_1.defineLock({ site: "pay", businessFlag: "pay" })\';\n',
    '/** Example: `x.defineLock({ site: "pay" })` then `const lease_1 = await pay_lock_1.acquire(orderNo); try { … } finally { … }` */\nexport const a = 1;\n',
  ]) {
    const result = weaveSource('a.ts', quote + tagged);
    t.deepEqual(result.errors, []);
    t.is(result.woven, 1, quote);
    t.regex(
      result.code,
      /const lease_\d+ = await pay_lock_\d+\.acquire\(orderNo\); try \{ return await lease_\d+\.run\(async \(\) => \{ return orderNo; \}\); \} finally \{ await lease_\d+\.release\(\); \} \}/,
      quote,
    );
  }
});

test("a body that looks woven but is not lockweave's lock, exactly as the tag says, is woven", (t) => {
  // The shape of woven text, a line below the top (the weave writes its header on line 1).
  const woven = weaveSource(
    'a.ts',
    '// orders\n/** @redisLock businessFlag=pay keyName=orderNo */\nexport async function pay(orderNo: string) { return orderNo; }\n',
  ).code;
  t.is(weaveSource('a.ts', woven).woven, 0, 'the real thing is left as it is');
  const forgeries: Record<string, string> = {
    "a runtime that is not lockweave's": woven.replace('"lockweave/runtime"', '"./my-runtime"'),
    'a lock assigned again': `${woven}pay_lock_1 = { acquire: async () => ({ run: (body: () => unknown) => body(), release: async () => undefined }) } as never;\n`,
    "the runtime's defineLock replaced": `${woven}(lockweave_1 as any).defineLock = () => null;\n`,
    'a runtime handed on': `${woven}export const r = lockweave_1;\n`,
    'a lock handed on': `${woven}export const l = pay_lock_1;\n`,
    'another key': woven.replace('acquire(orderNo)', 'acquire("fixed")'),
    'another business': woven.replace('businessFlag: "pay"', 'businessFlag: "other"'),
    'another site': woven.replace('site: "pay"', 'site: "elsewhere"'),
    'a statement before the acquire': woven.replace('{ const lease_1', '{ audit(); const lease_1'),
    'a statement between the acquire and the try': woven.replace('; try {', '; audit(); try {'),
    'a lock shadowed': woven.replace(
      'pay(orderNo: string)',
      'pay(orderNo: string, pay_lock_1: any = { acquire: async () => ({ run: (f: () => unknown) => f(), release: async () => undefined }) })',
    ),
    'a finally that does not release': woven.replace('finally { await lease_1.release(); }', 'finally { }'),
    'a release not awaited': woven.replace('finally { await lease_1.release(); }', 'finally { lease_1.release(); }'),
    'an acquire not awaited': woven.replace('const lease_1 = await pay_lock_1', 'const lease_1 = pay_lock_1'),
    'a run not awaited': woven.replace('return await lease_1.run(', 'return lease_1.run('),
    'the lease let, not const': woven.replace('const lease_1 =', 'let lease_1 ='),
    // Type stripping erases a declared lock: the method would call whatever the global scope holds.
    'a lock declared, not defined': woven.replace('const pay_lock_1 =', 'declare const pay_lock_1 ='),
    'a lock exported': woven.replace('const pay_lock_1 =', 'export const pay_lock_1 ='),
    'a lock let': woven.replace('const pay_lock_1 =', 'let pay_lock_1 ='),
    'a lock var': woven.replace('const pay_lock_1 =', 'var pay_lock_1 ='),
    'a runtime declared': woven.replace(
      'import * as lockweave_1 from "lockweave/runtime";',
      'declare const lockweave_1 = require("lockweave/runtime");',
    ),
    'the body releasing the lease early': woven.replace(
      'async () => { return orderNo; }',
      'async () => { await lease_1.release(); return orderNo; }',
    ),
    'the body in a plain arrow': woven.replace('lease_1.run(async () => {', 'lease_1.run(() => {'),
    'a skip line on a tag that does not skip': woven.replace('; try {', '; if (!lease_1) return undefined; try {'),
    'a catch beside the finally': woven.replace('} finally {', '} catch { return undefined; } finally {'),
    'a with statement': `${woven}with ({}) {}\n`,
    'an eval': `${woven}eval("");\n`,
    'a require of its own': woven.replace(
      'import * as lockweave_1 from "lockweave/runtime";',
      'const require = (_: string) => ({ defineLock: () => ({ acquire: async () => ({ run: (f: () => unknown) => f(), release: async () => undefined }) }) }); const lockweave_1 = require("lockweave/runtime");',
    ),
  };
  for (const [what, text] of Object.entries(forgeries)) {
    const result = weaveSource('a.ts', text);
    t.deepEqual(result.errors, [], what);
    t.is(result.woven, 1, `${what}: woven`);
  }
});

test('a tag hidden in what looks like the woven header is still read: woven or an error, never skipped', (t) => {
  const once = weaveSource(
    'a.ts',
    '/** @redisLock businessFlag=pay keyName=orderNo */\nexport async function pay(orderNo: string) { return orderNo; }\n',
  ).code;
  const hidden = once.replace(
    'defineLock({ site: "pay", businessFlag: "pay" })',
    'defineLock({ site: "pay", businessFlag: "pay", x: { /** @redisLock businessFlag=h keyName=k */ async h(k: string) { return k; } } })',
  );
  const result = weaveSource('a.ts', hidden);
  t.true(result.woven > 0 || result.errors.length > 0);
});

test('compiled JavaScript locks a site only where a function of that name holds the woven call (what the require hook trusts)', (t) => {
  const file = path.join(FIXTURES, 'cjs', 'src', 'order-service.ts');
  const options: ts.CompilerOptions = {
    target: ts6.ScriptTarget.ES2022,
    module: ts6.ModuleKind.CommonJS,
    skipLibCheck: true,
    types: [],
    removeComments: true,
  };
  const program = ts6.createProgram([file], options);
  const emitted = (transformers?: ts.CustomTransformers) => {
    let js = '';
    program.emit(
      program.getSourceFile(file),
      (name, text) => {
        if (name.endsWith('.js')) js = text;
      },
      undefined,
      false,
      transformers,
    );
    return js;
  };
  // ts-node with ts-patch, comments dropped: every tagged method is found locked, by its site.
  const woven = emitted({ before: [sourceTransformer(program, {}, { ts: ts6, addDiagnostic: () => 0 })] });
  t.deepEqual(
    lockedSitesOf(file, woven).sort(),
    weaveSource(file, fs.readFileSync(file, 'utf8')).locked.slice().sort(),
  );
  // Plain tsc: none; nor text that quotes the woven code.
  const plain = emitted();
  t.deepEqual(lockedSitesOf(file, plain), []);
  const quoted = `${plain}\nexports.doc = 'const pay_lock_1 = lockweave_1.defineLock({ site: "OrderService.pay" }); // const lease_1 = await pay_lock_1.acquire(order); try { return await lease_1.run(async () => {}); } finally { await lease_1.release(); }';\n`;
  t.deepEqual(lockedSitesOf(file, quoted), []);
  // A lock of the right site on another function is not the method's lock.
  const decoy =
    'const lockweave_1 = require("lockweave/runtime");\nconst pay_lock_1 = lockweave_1.defineLock({ site: "OrderService.pay", businessFlag: "payOrder" });\n' +
    'async function decoy(k) { const lease_1 = await pay_lock_1.acquire(k); try { return await lease_1.run(async () => { }); } finally { await lease_1.release(); } }\n';
  t.deepEqual(lockedSitesOf(file, decoy), []);
  // The woven shape with a part changed is not a lock: each forgery loses the method it touches.
  const all = lockedSitesOf(file, woven).length;
  const forgeries: Record<string, string> = {
    'no acquire (another method of the lock)': woven.replace('await pay_lock_1.acquire(', 'await pay_lock_1.keyFor('),
    'a finally without the release': woven.replace(/finally \{\s*await lease_1\.release\(\);\s*\}/, 'finally { }'),
    "the body not in the lease's run": woven.replace(/await lease_1\.run\(async/, 'await lease_1.then(async'),
    "a statement in the skip line's place": woven.replace(
      /(const lease_1 = await pay_lock_1\.acquire\([^;]*;)/,
      '$1 audit();',
    ),
  };
  for (const [what, forged] of Object.entries(forgeries)) {
    t.not(forged, woven, `${what}: the forgery changed the text`);
    t.is(lockedSitesOf(file, forged).length, all - 1, what);
  }
});

test('tag text in strings and templates is not a tag; a file without any is returned untouched', (t) => {
  const source = 'export const a = "@RedisLock businessFlag=x";\nexport const b = `// @redisLock ${a}`;\n';
  const result = weaveSource('a.ts', source);
  t.deepEqual(result.errors, []);
  t.is(result.code, source);
  t.is(result.map, undefined);
});

test('the runtime import follows the file: require in .cts and CommonJS files, import elsewhere', (t) => {
  const tagged =
    '/** @redisLock businessFlag=pay keyName=orderNo */\nasync function pay(orderNo: string) { return orderNo; }\n';
  t.regex(weaveSource('a.cts', tagged).code, /const lockweave_1 = require\("lockweave\/runtime"\);/);
  t.regex(weaveSource('a.ts', `${tagged}module.exports = { pay };\n`).code, /require\("lockweave\/runtime"\)/);
  t.regex(
    weaveSource('a.ts', `${tagged}export { pay };\n`).code,
    /import \* as lockweave_1 from "lockweave\/runtime";/,
  );
  t.regex(weaveSource('a.ts', tagged, { format: 'cjs' }).code, /require\("lockweave\/runtime"\)/);
});

test('bad plugin options are errors too', (t) => {
  const result = weaveSource(
    'a.ts',
    '/** @redisLock businessFlag=pay keyName=orderNo */\nexport async function pay(orderNo: string) { return orderNo; }\n',
    { defaults: { lockTime: 'soon' } },
  );
  t.is(result.errors.length, 1);
  t.regex(
    result.errors[0].formatted,
    /^lockweave plugin options - error TS93022: @redisLock: plugin option defaults\.lockTime/,
  );
});

test('fencing, in a tag or in the plugin defaults, is written into the spec; a value that is not true or false is an error', (t) => {
  const source =
    '/** @redisLock businessFlag=pay keyName=orderNo */\nexport async function pay(orderNo: string) { return orderNo; }\n';
  t.regex(
    weaveSource('a.ts', source, { defaults: { fencing: true } }).code,
    /defineLock\(\{ site: "pay", businessFlag: "pay", fencing: true \}\)/,
  );
  const tagged = weaveSource('a.ts', source.replace('keyName=orderNo', 'keyName=orderNo fencing=false'), {
    defaults: { fencing: true },
  });
  t.regex(tagged.code, /businessFlag: "pay", fencing: false \}/, 'the tag wins over the plugin default');
  const bad = weaveSource('a.ts', source, { defaults: { fencing: 'yes' } });
  t.is(bad.errors.length, 1);
  t.regex(bad.errors[0].formatted, /plugin option defaults\.fencing: "yes" is not true or false/);
  const badTag = weaveSource('a.ts', source.replace('keyName=orderNo', 'keyName=orderNo fencing=1'));
  t.is(badTag.errors.length, 1);
  t.regex(badTag.errors[0].formatted, /error TS93013: @redisLock: fencing: "1" is not true or false/);
});

/**
 * Both routes on one fixture: tspc's AST weave with the type checker, and weaveSource without
 * one (transpiled by TypeScript 6 to run). Every key kind must lock the same Redis key.
 */
test('with types (tspc) and without (bundlers, loader) every key kind locks the same key', async (t) => {
  const out = path.join(TMP, 'source-keys');
  fs.rmSync(out, { recursive: true, force: true });
  const src = path.join(FIXTURES, 'cjs', 'src');
  const files = ['key-kinds.ts', 'errors.ts'];
  const options: ts.CompilerOptions = {
    target: ts6.ScriptTarget.ES2022,
    module: ts6.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    types: [],
  };
  // Typed: the program route.
  const program = ts6.createProgram(
    files.map((f) => path.join(src, f)),
    { ...options, outDir: path.join(out, 'typed') },
  );
  const errors: ts.Diagnostic[] = [];
  program.emit(undefined, undefined, undefined, false, {
    before: [sourceTransformer(program, {}, { ts: ts6, addDiagnostic: (d) => errors.push(d) })],
  });
  t.deepEqual(errors, []);
  // Untyped: the text route, then plain transpiling.
  fs.mkdirSync(path.join(out, 'text'), { recursive: true });
  for (const file of files) {
    const woven = weaveSource(file, fs.readFileSync(path.join(src, file), 'utf8'), { format: 'cjs' });
    t.deepEqual(woven.errors, []);
    fs.writeFileSync(
      path.join(out, 'text', file.replace(/\.ts$/, '.js')),
      ts6.transpileModule(woven.code, { compilerOptions: options }).outputText,
    );
  }
  t.regex(fs.readFileSync(path.join(out, 'text', 'key-kinds.js'), 'utf8'), /readField\(/);

  // In a process of its own: this one ran its TypeScript (this file) through ts-node unwoven,
  // which lockweave's runtime refuses to load beside a weave that marked only the files it wove.
  const driver = path.join(out, 'calls.cjs');
  fs.writeFileSync(
    driver,
    `const runtime = require('lockweave');
const locked = [];
runtime.configure({ store: new runtime.MemoryLockStore(), logger: (event) => { if (event.type === 'acquired') locked.push(event.key); } });
const calls = async (dir) => {
  const { keys, Payment } = require(require('node:path').join(__dirname, dir, 'key-kinds.js'));
  locked.length = 0;
  await keys.byClass(new Payment('O1', 5));
  await keys.byMap(new Map([['orderNo', 'O2']]));
  await keys.byRecord({ 'order-no': 'O3' });
  await keys.byJsonText('{"orderNo":"O4"}');
  await keys.inferredClass(new Payment('O5', 7));
  const keyError = await keys.byMap(new Map()).then(() => 'none', (error) => error.name);
  return [...locked, keyError];
};
(async () => {
  const typed = await calls('typed');
  const text = await calls('text');
  console.log(JSON.stringify({ typed, text }));
  await runtime.close();
})();
`,
  );
  const ran = spawnSync(process.execPath, [driver], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  t.is(ran.status, 0, ran.stderr);
  const { typed, text } = JSON.parse(ran.stdout.trim().split('\n').pop()!) as { typed: string[]; text: string[] };
  t.deepEqual(typed, ['LOCK_cls_O1', 'LOCK_map_O2', 'LOCK_rec_O3', 'LOCK_json_O4', 'LOCK_inferred_7', 'LockKeyError']);
  t.deepEqual(text, typed);
});

test('replicas: a tag or plugin default is carried into the spec; a value that is not a whole number >= 0 is an error', (t) => {
  const source = (tag: string) =>
    `/** @redisLock businessFlag=pay keyName=orderNo${tag} */\nexport async function pay(orderNo: string) { return orderNo; }\n`;
  t.regex(
    weaveSource('a.ts', source(' replicas=1')).code,
    /defineLock\(\{ site: "pay", businessFlag: "pay", replicas: 1 \}\)/,
  );
  t.regex(weaveSource('a.ts', source(''), { defaults: { replicas: 2 } }).code, /replicas: 2 \}/);
  for (const bad of ['-1', 'one', '1.5']) {
    const result = weaveSource('a.ts', source(` replicas=${bad}`));
    t.is(result.errors.length, 1, bad);
    t.regex(
      result.errors[0].formatted,
      /error TS93013: @redisLock: replicas: ".*" is not a whole number >= 0; write e\.g\. replicas=1/,
      bad,
    );
  }
  for (const bad of [-1, true, '2x']) {
    const result = weaveSource('a.ts', source(''), { defaults: { replicas: bad } });
    t.is(result.errors.length, 1, String(bad));
    t.regex(result.errors[0].formatted, /plugin option defaults\.replicas/, String(bad));
  }
});

test('redlock=true is written into the spec; a redlock value that is not true or false is a compile error at the value', (t) => {
  const woven = weaveSource(
    'a.ts',
    '/** @redisLock businessFlag=pay keyName=orderNo redlock=true */\nexport async function pay(orderNo: string) { return orderNo; }\n',
  );
  t.regex(woven.code, /defineLock\(\{ site: "pay", businessFlag: "pay", redlock: true \}\)/);
  const bad = weaveSource(
    'b.ts',
    '/** @redisLock businessFlag=pay keyName=orderNo redlock=yes */\nexport async function pay(orderNo: string) { return orderNo; }\n',
  );
  t.throws(() => assertNoErrors(bad), {
    instanceOf: LockweaveBuildError,
    message: /redlock: "yes" is not true or false/,
  });
});

test('the plugin defaults may choose Redlock for every tag; a tag says redlock=false to stay on the one Redis', (t) => {
  const source =
    '/** @redisLock businessFlag=pay keyName=orderNo */\nexport async function pay(orderNo: string) { return orderNo; }\n' +
    '/** @redisLock businessFlag=refund keyName=orderNo redlock=false */\nexport async function refund(orderNo: string) { return orderNo; }\n';
  const woven = weaveSource('a.ts', source, { defaults: { redlock: true } });
  t.regex(woven.code, /businessFlag: "pay", redlock: true \}/);
  t.regex(woven.code, /businessFlag: "refund", redlock: false \}/);
  const bad = weaveSource('a.ts', source, { defaults: { redlock: 'maybe' } });
  t.regex(bad.errors[0].formatted, /plugin option defaults\.redlock: "maybe" is not true or false/);
});

test('redlock=true with fencing or replicas is a compile error at the tag, from the tag or the plugin defaults', (t) => {
  const source = (tag: string) =>
    `/** @redisLock businessFlag=pay keyName=orderNo${tag} */\nexport async function pay(orderNo: string) { return orderNo; }\n`;
  const cases: [string, Record<string, unknown> | undefined, RegExp][] = [
    [' redlock=true fencing=true', undefined, /redlock=true cannot be combined with fencing=true/],
    [' redlock=true replicas=1', undefined, /redlock=true cannot be combined with replicas=1/],
    [' fencing=true', { redlock: true }, /redlock=true cannot be combined with fencing=true/],
  ];
  for (const [tag, defaults, message] of cases) {
    const result = weaveSource('a.ts', source(tag), defaults && { defaults });
    t.is(result.errors.length, 1, tag);
    t.regex(result.errors[0].formatted, message, tag);
  }
  t.is(weaveSource('a.ts', source(' redlock=true fencing=false replicas=0')).errors.length, 0);
});
