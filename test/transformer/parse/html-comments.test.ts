// parse/: HTML-like comments. A JavaScript engine running a CommonJS file as a script reads `<!--`
// anywhere, and `-->` first on its line, as a comment to the end of the line, where TypeScript reads
// operators: what TypeScript takes for a template string may be live code holding a tagged method
// lockweave never wove. A file with tag text that holds either is error 93031 on every route.
import test from 'ava';
import { analyseFile } from '../../../transformer/check/analyse';
import { Code } from '../../../transformer/diagnostics';
import { weaveSource } from '../../../transformer/weave-source';
import { checkedFile, parsedFile, tsApi } from '../../helpers/in-memory-program';

const METHOD = [
  'class OrderService {',
  '  /** @redisLock businessFlag=payOrder keyName=orderNo */',
  '  async pay(orderNo: string): Promise<string> { return orderNo; }',
  '}',
];

/** A class TypeScript reads inside a template string, and the engine as code after `<!--`. */
const HIDDEN = [
  'let opened = 0;',
  'const s = opened <!--opened; `',
  ...METHOD,
  'module.exports = { OrderService };',
  '//`;',
].join('\n');

const errorsOf = (source: string) =>
  analyseFile(tsApi, undefined, parsedFile(source), {})
    .errors.filter((e) => e.code === Code.HtmlLikeComment)
    .map((e) => e.span.start);

test('`<!--` in a file with tag text is error 93031 at it, with and without a type checker, and the text routes fail', (t) => {
  t.deepEqual(errorsOf(HIDDEN), [HIDDEN.indexOf('<!--')]);
  const { file, checker } = checkedFile(HIDDEN);
  t.deepEqual(
    analyseFile(tsApi, checker, file, {}).errors.map((e) => [e.code, e.span.start, e.span.length]),
    [[Code.HtmlLikeComment, HIDDEN.indexOf('<!--'), 4]],
  );
  const woven = weaveSource('/virtual/service.ts', HIDDEN, { sourceMap: false });
  t.deepEqual(
    woven.errors.map((e) => [e.code, e.line, e.column]),
    [[Code.HtmlLikeComment, 2, 18]],
  );
  t.regex(
    woven.errors[0]!.message,
    /^@redisLock: `<!--` anywhere starts a comment to the end of the line when JavaScript runs this file as a script \(CommonJS\)/,
  );
});

test('anywhere means anywhere: in a string or a comment too (where the engine and TypeScript part ways is hard to know)', (t) => {
  for (const line of ["const html = '<!-- note -->';", '// <!-- a comment', 'const t = `<!--`;']) {
    const source = [line, ...METHOD].join('\n');
    t.deepEqual(errorsOf(source), [source.indexOf('<!--')], line);
  }
});

test('`-->` first on a line, after white space or a block comment, is 93031; elsewhere on a line it is `--` and `>`', (t) => {
  for (const line of ['-->', '   --> x', '\t/* c */ --> x', ' * end of a block */ --> x']) {
    const source = [...METHOD, 'let a = 1;', line].join('\n');
    t.deepEqual(errorsOf(source), [source.lastIndexOf('-->')], JSON.stringify(line));
  }
  t.deepEqual(errorsOf(['-->', ...METHOD].join('\n')), [0], 'at the start of the file');
  for (const line of ['let b = a-->0;', 'while (a --> 0) {}']) {
    t.deepEqual(errorsOf([...METHOD, 'let a = 1;', line].join('\n')), [], line);
  }
});

test('a file without tag text is left alone', (t) => {
  const source = 'let opened = 0;\nconst s = opened <!--opened;\n-->\nexport {};\n';
  t.deepEqual(analyseFile(tsApi, undefined, parsedFile(source), {}).errors, []);
  t.is(weaveSource('/virtual/plain.ts', source).code, source);
});
