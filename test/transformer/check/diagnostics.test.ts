// check/: every misuse of the tag is an error with its own code (transformer/diagnostics.ts), at
// the tag or the attribute it is about, and every function an error stands on is refused (woven as
// a throw, never left unlocked). In process: a TypeScript program over the negative fixtures
// (test/fixtures/transformer/errors, whose `// expect TS930xx "text"` lines say what and where),
// with its type checker, as tspc's transformer sees it. The same fixtures through tspc itself are
// test/transformer/e2e/negative-fixtures.test.ts.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { analyseFile, type FileAnalysis } from '../../../transformer/check/analyse';
import { Code } from '../../../transformer/diagnostics';
import { readPluginOptions } from '../../../transformer/plugin-config';
import { expectations, fixture } from '../../helpers/fixture-projects';
import { checkedFile, lineAndColumn, programOf, tsApi } from '../../helpers/in-memory-program';

const ERRORS = fixture('errors', 'src');
const expected = expectations(ERRORS);

/** The negative fixtures as one program (their classes import each other), analysed file by file. */
const analysed: ReadonlyMap<string, { file: ts.SourceFile; analysis: FileAnalysis }> = (() => {
  const names = fs.readdirSync(ERRORS).filter((name) => name.endsWith('.ts'));
  const files = Object.fromEntries(
    names.map((name) => [path.join(ERRORS, name), fs.readFileSync(path.join(ERRORS, name), 'utf8')]),
  );
  const program = programOf(files);
  const checker = program.getTypeChecker();
  return new Map(
    names.map((name) => {
      const file = program.getSourceFile(path.join(ERRORS, name))!;
      return [name, { file, analysis: analyseFile(tsApi, checker, file, {}) }];
    }),
  );
})();

/** Misuses the fixtures cannot hold (they would change the other cases), each with where its error must start. */
const INLINE: Record<string, { source: string; code: number; at: string }> = {
  'another letter case': {
    source:
      'export class S {\n  /** @RedisLock businessFlag=a keyName=x */\n  async m(x: string): Promise<void> { void x; }\n}\n',
    code: Code.NotTheTag,
    at: '@RedisLock',
  },
  ...Object.fromEntries(
    ['@redis-lock', '@redis_lock', '@redis.lock', '@redisLocks', '@RedisLocked', '@redislockTime'].map((name) => [
      `a near miss, ${name}`,
      {
        source: `export class S {\n  /** ${name} businessFlag=a keyName=x */\n  async m(x: string): Promise<void> { void x; }\n}\n`,
        code: Code.NotTheTag,
        at: name,
      },
    ]),
  ),
  'a line comment': {
    source:
      'export class S {\n  // @redisLock businessFlag=a keyName=x\n  async m(x: string): Promise<void> { void x; }\n}\n',
    code: Code.NotTheTag,
    at: '@redisLock',
  },
  'two tags on one method': {
    source:
      'export class S {\n  /**\n   * @redisLock businessFlag=a keyName=x\n   * @redisLock businessFlag=b keyName=x\n   */\n  async m(x: string): Promise<void> { void x; }\n}\n',
    code: Code.RepeatedTag,
    at: '@redisLock businessFlag=b',
  },
  'signal= naming a value that is not an AbortSignal': {
    source:
      'export class S {\n  /** @redisLock businessFlag=a keyName=x signal=options.timeout */\n  async m(x: string, options: { timeout: number }): Promise<void> { void x; void options; }\n}\n',
    code: Code.SignalType,
    at: 'options.timeout',
  },
  'onFail=skip on a method that says it always resolves a string': {
    source:
      'export class S {\n  /** @redisLock businessFlag=a keyName=x onFail=skip */\n  async m(x: string): Promise<string> { return x; }\n}\n',
    code: Code.SkipReturnType,
    at: '@redisLock businessFlag=a',
  },
  'onFail=skip on a method without a declared return type': {
    source:
      'export class S {\n  /** @redisLock businessFlag=a keyName=x onFail=skip */\n  async m(x: string) { return x; }\n}\n',
    code: Code.SkipReturnType,
    at: '@redisLock businessFlag=a',
  },
};

test('onFail=skip is planned when the declared return type admits undefined', (t) => {
  for (const type of ['Promise<string | undefined>', 'Promise<void>', 'Promise<(number | void)>', 'Promise<unknown>']) {
    const { file, checker } = checkedFile(
      `export class S {\n  /** @redisLock businessFlag=a keyName=x onFail=skip */\n  async m(x: string): ${type} { return undefined; }\n}\n`,
    );
    const { errors, plans } = analyseFile(tsApi, checker, file, {});
    t.deepEqual(errors, [], type);
    t.is(plans.length, 1, type);
  }
});

test('each fixture misuse is reported once, with its code, at its line and column, and nothing else is', (t) => {
  for (const [name, { file, analysis }] of analysed) {
    const reported = analysis.errors.map((e) => ({ file: name, ...lineAndColumn(file, e.span.start), code: e.code }));
    const wanted = expected.filter((e) => e.file === name);
    t.deepEqual(
      [...reported].sort((a, b) => a.line - b.line || a.column - b.column),
      [...wanted].sort((a, b) => a.line - b.line || a.column - b.column),
      name,
    );
    t.true(
      analysis.errors.every((e) => e.message.startsWith('@redisLock: ') && e.span.file === file),
      name,
    );
  }
});

test('every function a fixture error stands on is refused, and none of them is planned as well', (t) => {
  for (const [name, { analysis }] of analysed) {
    const refused = new Set<ts.Node>(analysis.refused.map((r) => r.node));
    t.true(
      analysis.plans.every((plan) => !refused.has(plan.target.node)),
      name,
    );
    t.true(
      analysis.refused.every((r) => analysis.errors.includes(r.error)),
      name,
    );
  }
  const keys = analysed.get('keys.ts')!.analysis;
  t.is(keys.refused.length, keys.errors.length, 'keys.ts: one refused method per error');
});

test('misuses outside the fixtures: another spelling, a tag in a comment, two tags on one method, onFail=skip on a return type without undefined', (t) => {
  const nearMiss = checkedFile(
    'export class S {\n  /** @redis-lock businessFlag=a keyName=x */\n  async m(x: string): Promise<void> { void x; }\n}\n',
  );
  t.regex(
    analyseFile(tsApi, nearMiss.checker, nearMiss.file, {}).errors[0]!.message,
    /^@redisLock: @redis-lock is not @redisLock: the compiler reads it as a tag of another name and nothing would be locked/,
  );
  // Inside a word (an e-mail address) a near miss is prose; starting one, the compiler reads a tag there.
  const source =
    'export class S {\n  /** Mail ops@redis-lock.example, see @redis-lock/core. */\n  async m(x: string): Promise<void> { void x; }\n}\n';
  const prose = checkedFile(source);
  t.deepEqual(
    analyseFile(tsApi, prose.checker, prose.file, {}).errors.map((e) => e.span.start),
    [source.indexOf('@redis-lock/core')],
  );
  for (const [what, { source, code, at }] of Object.entries(INLINE)) {
    const { file, checker } = checkedFile(source);
    const { errors, plans, refused } = analyseFile(tsApi, checker, file, {});
    t.deepEqual(
      errors.map((e) => [e.code, e.span.start]),
      [[code, source.indexOf(at)]],
      what,
    );
    t.is(plans.length, 0, what);
    t.is(refused.length, 1, what);
  }
});

test("a lock tag's attributes under a name the compiler does not read as the tag are an error at the name, or at the attributes", (t) => {
  const method = (comment: string) =>
    `export class S {\n  ${comment}\n  async m(x: string): Promise<void> { void x; }\n}\n`;
  // A name within two edits of the tag (any case): the error stands at the name.
  for (const name of ['@redisLok', '@redsLock', '@redisLcok', '@reddisLock', '@rediLok', '@redLock', '@REDISLOK']) {
    const source = method(`/** ${name} businessFlag=a keyName=x */`);
    const { file, checker } = checkedFile(source);
    const { errors, plans, refused } = analyseFile(tsApi, checker, file, {});
    t.deepEqual(
      errors.map((e) => [e.code, e.span.start, e.span.length]),
      [[Code.NotTheTag, source.indexOf(name), name.length]],
      name,
    );
    t.regex(
      errors[0]!.message,
      new RegExp(`^@redisLock: ${name} is not @redisLock: the comment holds a lock tag's attributes`),
    );
    t.is(plans.length, 0, name);
    t.is(refused.length, 1, `${name}: the method is emitted as a throw`);
  }
  // No name that reads as the tag (a space, a fullwidth at sign, another tag, none): at the first attribute.
  for (const comment of [
    '/** @redis Lock businessFlag=a keyName=x */',
    '/** @ redisLock businessFlag=a keyName=x */',
    '/** \uFF20redisLock businessFlag=a keyName=x */',
    '/** @redis\n   * Lock keyName=x businessFlag=a */',
    '/** @param x keyName=x */',
    '/** businessFlag=a */',
  ]) {
    const source = method(comment);
    const { file, checker } = checkedFile(source);
    const { errors, refused } = analyseFile(tsApi, checker, file, {});
    const first = Math.min(...['businessFlag=', 'keyName='].map((a) => source.indexOf(a)).filter((at) => at >= 0));
    t.deepEqual(
      errors.map((e) => [e.code, e.span.start]),
      [[Code.NotTheTag, first]],
      comment,
    );
    t.regex(errors[0]!.message, /this comment holds a lock tag's attributes \(\w+=…\) but no @redisLock tag/, comment);
    t.is(refused.length, 1, comment);
  }
  // Prose and code stay as they are: attributes in a line comment with no name near the tag, in a
  // string, set as a property; and a good tag's own attributes.
  for (const source of [
    method('// keyName=x is refused when x is an object'),
    'export const s = "businessFlag=a keyName=x";\nconst o = { keyName: 1 };\no.keyName=2;\n',
    method('/** @redisLock businessFlag=a keyName=x */'),
  ]) {
    const { file, checker } = checkedFile(source);
    t.deepEqual(analyseFile(tsApi, checker, file, {}).errors, [], source);
  }
  // In a line comment, a name near the tag makes it one.
  const line = method('// @redisLok businessFlag=a keyName=x');
  const { file, checker } = checkedFile(line);
  t.deepEqual(
    analyseFile(tsApi, checker, file, {}).errors.map((e) => [e.code, e.span.start]),
    [[Code.NotTheTag, line.indexOf('@redisLok')]],
  );
});

test('every code but 93009, 93029, 93030 and 93031 has a case here (93009: parse/jsdoc-view.test.ts; 93029, a program-wide check: lock-order.test.ts; 93030, found as tspc emits: e2e/transformer-before.test.ts; 93031, about a file and not a tag: parse/html-comments.test.ts; 93022: the plugin options below)', (t) => {
  const covered = new Set([
    ...expected.map((e) => e.code),
    ...Object.values(INLINE).map((c) => c.code),
    Code.PluginConfig,
    Code.JsDocNotRead,
    Code.LockOrderCycle,
    Code.RebuiltBeforeWeave,
    Code.HtmlLikeComment,
  ]);
  t.deepEqual(
    Object.values(Code).filter((code) => !covered.has(code)),
    [],
  );
});

test("a good tag is a plan: the site, the flag, the plugin defaults overlaid by the tag's own options, the key path", (t) => {
  const source =
    'export class Orders {\n  /** @redisLock businessFlag=payOrder keyName=order.no retries=2 */\n  async pay(order: { no: string }): Promise<void> { void order; }\n}\n';
  const { file, checker } = checkedFile(source);
  const { errors, plans } = analyseFile(tsApi, checker, file, { retries: 9, lockTime: 20_000 });
  t.deepEqual(errors, []);
  t.is(plans.length, 1);
  const [plan] = plans;
  t.is(plan!.target.site, 'Orders.pay');
  t.is(plan!.businessFlag, 'payOrder');
  t.deepEqual(plan!.options, { retries: 2, lockTime: 20_000 });
  t.deepEqual(
    plan!.keys.map((k) => [k.parameter, k.properties]),
    [['order', ['no']]],
  );
});

test('redlock with fencing from the plugin defaults is refused at the tag (93013)', (t) => {
  const source =
    'export class S {\n  /** @redisLock businessFlag=a keyName=x redlock=true */\n  async m(x: string): Promise<void> { void x; }\n}\n';
  const { file, checker } = checkedFile(source);
  const { errors } = analyseFile(tsApi, checker, file, { fencing: true });
  t.deepEqual(
    errors.map((e) => [e.code, e.span.start]),
    [[Code.MalformedValue, source.indexOf('@redisLock')]],
  );
  t.regex(errors[0]!.message, /redlock=true cannot be combined with fencing=true/);
});

test('minHold is a duration read as the table reads it; beside autoUnlock=false or past lockTime it is refused at the tag (93013)', (t) => {
  const tagged = (attributes: string) =>
    `export class Jobs {\n  /** @redisLock businessFlag=nightly ${attributes} */\n  async run(): Promise<void> {}\n}\n`;
  const good = checkedFile(tagged('onFail=throw minHold=50s lockTime=2m'));
  const { errors, plans } = analyseFile(tsApi, good.checker, good.file, {});
  t.deepEqual(errors, []);
  t.deepEqual(plans[0]!.options, { onFail: 'throw', minHold: 50_000, lockTime: 120_000 });
  t.deepEqual(plans[0]!.keys, [], "no keyName: the business's one lock");
  for (const [attributes, defaults, message] of [
    ['minHold=50s autoUnlock=false', {}, /minHold and autoUnlock=false cannot be combined/],
    ['minHold=2m lockTime=1m', {}, /minHold \(120000 ms\) is longer than lockTime \(60000 ms\)/],
    ['minHold=2m', { lockTime: 60_000 }, /longer than lockTime[\s\S]*plugin's defaults/],
    ['minHold=soon', {}, /"soon" is not a duration/],
  ] as const) {
    const source = tagged(attributes);
    const { file, checker } = checkedFile(source);
    const analysis = analyseFile(tsApi, checker, file, defaults);
    t.is(analysis.errors.length, 1, attributes);
    t.is(analysis.errors[0]!.code, Code.MalformedValue, attributes);
    t.regex(analysis.errors[0]!.message, message, attributes);
  }
});

test('keyNames: refused beside keyName, keyType or fieldName; one path must name a list of keys', (t) => {
  for (const [attributes, params, code, message] of [
    [
      'keyName=a keyNames=a,b',
      'a: string, b: string',
      Code.RepeatedAttribute,
      /keyName .* and keyNames .* cannot both be given/,
    ],
    ['keyNames=a,b fieldName=id', 'a: string, b: string', Code.FieldNameUnexpected, /keyNames takes dotted paths only/],
    [
      'keyNames=a',
      'a: string',
      Code.KeyType,
      /keyNames=a names one path, so it locks each element of a list, and a has type string/,
    ],
    ['keyNames=a', 'a: { id: string }[]', Code.KeyType, /the key a\[i\] is an object/],
    ['keyNames=a,b', 'a: string, b: Date', Code.KeyType, /the key b is an object/],
  ] as const) {
    const source = `export class S {\n  /** @redisLock businessFlag=f ${attributes} */\n  async m(${params}): Promise<void> {}\n}\n`;
    const { file, checker } = checkedFile(source);
    const { errors } = analyseFile(tsApi, checker, file, {});
    t.deepEqual(
      errors.map((e) => e.code),
      [code],
      attributes,
    );
    t.regex(errors[0]!.message, message, attributes);
  }
});

test('signal= must name one path to an AbortSignal (or AbortSignal | undefined): 93028 at its value', (t) => {
  for (const [attribute, params, code, message] of [
    [
      'signal=options.timeout',
      'options: { timeout: number }',
      Code.SignalType,
      /signal=options\.timeout has type number; it must be an AbortSignal/,
    ],
    ['signal=ctx', 'ctx: AbortController', Code.SignalType, /has type AbortController/],
    ['signal=nope', 'ctx: AbortSignal', Code.UnknownParameter, /nope is not a parameter/],
    ['signal=a,b', 'a: AbortSignal, b: AbortSignal', Code.NotAPath, /signal names one parameter or dotted path/],
    ['signal=ctx.signal', 'ctx: { signal?: AbortSignal }', undefined, undefined],
    ['signal=ctx', 'ctx: AbortSignal | undefined', undefined, undefined],
  ] as const) {
    const source = `export class S {\n  /** @redisLock businessFlag=f keyName=k ${attribute} */\n  async m(k: string, ${params}): Promise<void> {}\n}\n`;
    const { file, checker } = checkedFile(source);
    const { errors } = analyseFile(tsApi, checker, file, {});
    t.deepEqual(
      errors.map((e) => e.code),
      code === undefined ? [] : [code],
      attribute,
    );
    if (message) t.regex(errors[0]!.message, message, attribute);
  }
});

test('a bad plugin option that holds a Redis URL is quoted without its user and password', (t) => {
  const { errors } = readPluginOptions({
    prefix: 'redis://bob:Hunter2PA@redis.internal:6379/',
    defaults: {
      lockTime: { url: 'redis://:Hunter2PB@h' },
      waitTime: 'redis://:Hunter2PC@h',
      onFail: 'rediss:bob:Hunter2PD@h',
    },
  });
  const messages = errors.map((error) => error.message).join('\n');
  t.is(errors.length, 4, messages);
  t.false(messages.includes('Hunter2'), messages);
  t.regex(messages, /prefix: "redis:\/\/…@redis\.internal:6379\/"/);
});

test('bad plugin options are 93022 each, with no place in a file', (t) => {
  const { errors, defaults } = readPluginOptions({
    prefix: 'ok',
    retriez: 1,
    defaults: { lockTime: 'abc', bussinessFlag: 'x', retries: 3 },
  });
  t.deepEqual(
    errors.map((e) => e.code),
    [Code.PluginConfig, Code.PluginConfig, Code.PluginConfig],
  );
  t.true(errors.every((e) => e.span.file === undefined && e.message.startsWith('@redisLock: plugin option')));
  t.regex(
    errors.map((e) => e.message).join('\n'),
    /retriez is unknown[\s\S]*defaults\.lockTime: "abc"[\s\S]*defaults\.bussinessFlag/,
  );
  t.deepEqual(defaults, { prefix: 'ok', retries: 3 });
});
