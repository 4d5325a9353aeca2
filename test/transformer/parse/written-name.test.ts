// parse/: a tag name written with \u escapes, invisible characters or look-alike letters. The
// compiler decodes escapes in a JSDoc tag name (to it `@redis\u004cock` is the tag), and reads an
// invisible or look-alike character as part of another name: each is error 93025 at the name, on
// every route — the routes' text test lets such a file through, and the analysis reports it.
import test from 'ava';
import { holdsDisguisedName, MAY_HOLD_TAG, mayHoldTagText } from '../../../runtime/base/tag-text';
import { analyseFile } from '../../../transformer/check/analyse';
import { Code } from '../../../transformer/diagnostics';
import { isExactTag, mayHoldTag, tagMentions } from '../../../transformer/parse/find-tags';
import { plainName } from '../../../transformer/parse/written-name';
import { weaveSource } from '../../../transformer/weave-source';
import { checkedFile, parsedFile, tsApi } from '../../helpers/in-memory-program';

const ESCAPED = ['@redis\\u004cock', '@r\\u0065disLock', '@redis\\u{4c}ock', '@redis\\u{0004C}ock', '@\\u0072edisLock'];
const LOOK_ALIKE = [
  '@redis\u200dLock', // zero-width joiner
  '@redis\u200cLock', // zero-width non-joiner
  '@redis\u2060Lock', // word joiner
  '@redis\u00adLock', // soft hyphen
  '@redisLoc\u212a', // Kelvin sign
  '@r\u0435disLock', // Cyrillic е
  '@redisL\u03bfck', // Greek ο
  '@redisLo\u0441\u043a', // Cyrillic с, к
  '@\uff52edisLock', // fullwidth r
  '@\u{1d42b}edisLock', // mathematical bold r
  '@redisLock\u0436', // the tag, then a Cyrillic letter: one longer name to the compiler
  '@redis\\u004cocks', // escapes spelling a near miss
  // Letters and invisible characters no table lists: read without what is not ASCII, the name is
  // within two letters of the tag's.
  '@redisL\u0585ck', // Armenian օ
  '@redis\ua4e1ock', // Lisu ꓡ
  '@redis\u13deock', // Cherokee Ꮮ
  '@red\u0131sLock', // dotless ı
  '@redisLoc\u1d0b', // small capital ᴋ
  '@re\u0301disLock', // a combining accent
  '@redis\u3164Lock', // Hangul filler
  '@redis\uffa0Lock', // halfwidth Hangul filler
  '@redis\u180bLock', // Mongolian variation selector
  '@redis\ufe0eLock', // variation selector
  '@redis\u{e0041}Lock', // tag character
  '@red\u0130sLock', // capital I with a dot
  '@\u0433edisLock', // Cyrillic г for r
];

test('names that only share letters with the tag, or that are prose, are not read as it', (t) => {
  for (const text of ['@résumé', '@张三', '@café', 'ops@rédis.example', '@paramètre', '@ré', '@返回 redis lock'])
    t.deepEqual(tagMentions(`/** ${text} x */`), [], text);
});

const tagged = (name: string) =>
  `export class S {\n  /** ${name} businessFlag=a keyName=x */\n  async m(x: string): Promise<void> { void x; }\n}\n`;

test('the compiler reads a tag name written with \\u escapes as the tag itself', (t) => {
  for (const name of ESCAPED) {
    const file = tsApi.createSourceFile('a.ts', tagged(name), tsApi.ScriptTarget.Latest, true);
    const method = (file.statements[0] as import('typescript').ClassDeclaration).members[0]!;
    t.deepEqual(
      tsApi.getJSDocTags(method).map((tag) => tag.tagName.text),
      ['redisLock'],
      name,
    );
  }
});

test("every route's text test lets such a name through, also the runtime's test inside a JSDoc block", (t) => {
  // As the runtime asks of a TypeScript file a process ran unwoven (runtime/base/weave-mark.ts).
  const inJsDoc = new RegExp(`/\\*\\*(?:(?!\\*/)[\\s\\S])*?${MAY_HOLD_TAG.source}`, 'i');
  for (const name of [...ESCAPED, ...LOOK_ALIKE]) {
    t.true(mayHoldTag(tagged(name)), name);
    t.true(inJsDoc.test(tagged(name)), name);
    t.deepEqual(tagMentions(tagged(name)), [tagged(name).indexOf('@')], name);
    t.false(isExactTag(tagged(name), tagged(name).indexOf('@')), name);
  }
});

test('each is error 93025 at the name, with or without a type checker, and its method is refused', (t) => {
  for (const name of [...ESCAPED, ...LOOK_ALIKE]) {
    const source = tagged(name);
    for (const { file, checker } of [checkedFile(source), { file: parsedFile(source), checker: undefined }]) {
      const { errors, plans, refused } = analyseFile(tsApi, checker, file, {});
      t.deepEqual(
        errors.map((e) => [e.code, e.span.start, e.span.length]),
        [[Code.NotTheTag, source.indexOf('@'), name.length]],
        name,
      );
      t.is(plans.length, 0, name);
      t.is(refused.length, 1, name);
    }
  }
  const escaped = analyseFile(tsApi, undefined, parsedFile(tagged(ESCAPED[0]!)), {}).errors[0]!;
  t.is(
    escaped.message,
    '@redisLock: @redis\\u004cock is not @redisLock: it spells @redisLock with \\u escapes, which lockweave does not read as the tag, and nothing would be locked; write the tag name without escapes: @redisLock',
  );
  const joiner = analyseFile(tsApi, undefined, parsedFile(tagged(LOOK_ALIKE[0]!)), {}).errors[0]!;
  t.regex(
    joiner.message,
    /^@redisLock: @redis\\u200DLock is not @redisLock: it holds characters outside ASCII \(U\+200D/,
  );
  t.regex(joiner.message, /write the tag name in plain ASCII: @redisLock$/);
});

test('the text routes fail on it, and emit the method as a throw, never unlocked', (t) => {
  for (const name of [...ESCAPED, ...LOOK_ALIKE]) {
    const result = weaveSource('/virtual/service.ts', tagged(name), { sourceMap: false });
    t.deepEqual(
      result.errors.map((e) => e.code),
      [Code.NotTheTag],
      name,
    );
    t.notRegex(result.code, /acquire\(/, name);
    t.regex(result.code, /throw new Error\("@redisLock:/, name);
  }
});

test('the exact tag still weaves beside a declaration whose tag is an escaped spelling', (t) => {
  const source = [
    '/** @redis\\u004cock businessFlag=a keyName=x */',
    'export class S {',
    '  /** @redisLock businessFlag=a keyName=x */',
    '  async m(x: string): Promise<void> { void x; }',
    '}',
  ].join('\n');
  const { file, checker } = checkedFile(source);
  const { errors, plans } = analyseFile(tsApi, checker, file, {});
  t.deepEqual(
    errors.map((e) => [e.code, e.span.start]),
    [[Code.NotTheTag, 4]],
  );
  t.deepEqual(
    plans.map((p) => p.target.site),
    ['S.m'],
  );
});

test('prose outside ASCII is no mention: an @ in an address, before a tag of another name, in a string', (t) => {
  const source = [
    '// Mail josé@café.example or 用户@例子.公司 about it; ping @Zoë.',
    '/** @param name — 名前 (the \\u0041 escape) @author Zoë */',
    'export function f(name: string): string { return `user@\\u00e9xample ${name} @\\u0041`; }',
    '/** @redisLock\u200b businessFlag=a keyName=x */ // a zero-width space ends a name: the tag itself',
    'export async function g(x: string): Promise<void> { void x; }',
  ].join('\n');
  t.true(holdsDisguisedName(source));
  // Kana, CJK ideographs and Hangul read as themselves: a name that starts with one is no tag's.
  t.false(mayHoldTagText('// 联系 张三@例子.公司, @张三, @ハル, @한국\nexport const a = 1;\n'));
  t.deepEqual(tagMentions(source), [source.indexOf('@redisLock')]);
  t.true(isExactTag(source, source.indexOf('@redisLock')));
});

test("the routes' quick text test answers as the one regular expression does", (t) => {
  const samples = [
    ...[...ESCAPED, ...LOOK_ALIKE].map(tagged),
    tagged('@redisLock'),
    tagged('@RedisLock'),
    '@Injectable()\nexport class A { @Get(":id") find() {} }',
    'mail josé@café.example',
    '// 联系 张三@例子.公司, @张三, @ハル, @한국',
    '@r\u0435dis张Lock',
    'see @Zoë',
    'x @a.b-c$\\U0041',
    'x @a.b-c$\\x41',
    '@',
    'trailing @abc',
    '— no at sign at all',
    '',
  ];
  for (const text of samples) t.is(mayHoldTagText(text), MAY_HOLD_TAG.test(text), JSON.stringify(text));
});

test('plainName: escapes decoded, invisible characters dropped, compatibility forms and look-alike letters folded', (t) => {
  t.is(plainName('@redis\\u{4C}ock'), '@redisLock');
  t.is(plainName('@r\u0435d\u0456\u0455\u04cf\u03bf\u0441\u03ba'), '@redislock');
  t.is(plainName('@\uff32\uff25dis\u200dLoc\u212a'), '@REdisLocK');
  t.is(plainName('@redis\\u{110000}'), '@redis\\u{110000}'); // no such code point: left as written
});
