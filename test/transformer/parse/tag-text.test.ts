// parse/: the text of one tag → name=value attributes, each with the place of its name and value,
// and malformed text → error 93014 at the word that is wrong. In process, on the TypeScript API.
// The result is data: a value is a string whatever it holds, never read as code.
import test from 'ava';
import { Code, LockweaveDiagnostic } from '../../../transformer/diagnostics';
import { findTaggedDeclarations, isExactTag, tagMentions } from '../../../transformer/parse/find-tags';
import { jsDocView } from '../../../transformer/parse/jsdoc-view';
import { readTagText, type TagText } from '../../../transformer/parse/tag-text';
import { parsedFile, tsApi } from '../../helpers/in-memory-program';

/** The file holding `comment` above a method, and the first tag the parser attaches. */
function tagOf(comment: string) {
  const text = `export class Svc {\n  ${comment}\n  async pay(orderNo: string): Promise<void> { void orderNo; }\n}\n`;
  const file = parsedFile(text);
  const [found] = findTaggedDeclarations(
    tsApi,
    file,
    tagMentions(text).filter((at) => isExactTag(text, at)),
    jsDocView(tsApi, file, tagMentions(text)),
  );
  if (!found) throw new Error(`no tag found in ${comment}`);
  return { text, file, tag: found.tag };
}

function read(comment: string): { text: string; tag: TagText } {
  const { text, file, tag } = tagOf(comment);
  return { text, tag: readTagText(file, tag) };
}

/** The error reading `comment` throws: its code and the text its span covers. */
function refused(comment: string): { code: number; at: string } {
  const { text, file, tag } = tagOf(comment);
  try {
    readTagText(file, tag);
  } catch (error) {
    if (!(error instanceof LockweaveDiagnostic)) throw error;
    return { code: error.code, at: text.slice(error.span.start, error.span.start + error.span.length) };
  }
  throw new Error(`no error reading ${comment}`);
}

test('attributes in order, with their values as written and whether they were quoted', (t) => {
  const { tag } = read('/** @redisLock businessFlag=payOrder keyName=orderNo lockTime="30s" */');
  t.deepEqual(
    tag.attributes.map((a) => [a.name, a.value, a.quoted]),
    [
      ['businessFlag', 'payOrder', false],
      ['keyName', 'orderNo', false],
      ['lockTime', '30s', true],
    ],
  );
});

test('every name and value keeps its place in the file; the tag span is `@redisLock`', (t) => {
  const { text, tag } = read('/** @redisLock businessFlag=payOrder keyName="orderNo" */');
  const at = (span: { start: number; length: number }) => text.slice(span.start, span.start + span.length);
  t.is(at(tag.tagSpan), '@redisLock');
  t.deepEqual(
    tag.attributes.map((a) => [at(a.nameSpan), at(a.valueSpan)]),
    [
      ['businessFlag', 'payOrder'],
      ['keyName', '"orderNo"'],
    ],
  );
});

test('a tag over several JSDoc lines: the leading `*` of each line is not text', (t) => {
  const { tag } = read('/**\n   * Pays.\n   * @redisLock businessFlag=payOrder\n   *   keyName=orderNo\n   */');
  t.deepEqual(
    tag.attributes.map((a) => [a.name, a.value]),
    [
      ['businessFlag', 'payOrder'],
      ['keyName', 'orderNo'],
    ],
  );
});

test('a value holding code is kept as a string, verbatim', (t) => {
  const { tag } = read('/** @redisLock businessFlag="a);process.exit(1);//" keyName=${globalThis} */');
  t.deepEqual(
    tag.attributes.map((a) => a.value),
    ['a);process.exit(1);//', '${globalThis}'],
  );
});

test('malformed text is 93014, pointing at the word that is wrong', (t) => {
  t.deepEqual(refused('/** @redisLock businessFlag payOrder */'), { code: Code.MalformedTagText, at: 'businessFlag' });
  t.deepEqual(refused('/** @redisLock businessFlag=payOrder keyName= */'), {
    code: Code.MalformedTagText,
    at: 'keyName',
  });
  t.deepEqual(refused('/** @redisLock businessFlag="payOrder keyName=x */'), {
    code: Code.MalformedTagText,
    at: '"payOrder',
  });
  t.deepEqual(refused('/** @redisLock businessFlag="pay"Order keyName=x */'), {
    code: Code.MalformedTagText,
    at: 'Order',
  });
  t.deepEqual(refused('/** @redisLock =payOrder */'), { code: Code.MalformedTagText, at: '=payOrder' });
});

test('a quoted value may not run onto the next line', (t) => {
  t.deepEqual(refused('/**\n   * @redisLock businessFlag="pay\n   * Order" keyName=x\n   */'), {
    code: Code.MalformedTagText,
    at: '"pay',
  });
});
