// Splits the text of one `@redisLock` tag into `name=value` attributes, keeping the source
// position of every name and value so that errors point at the attribute itself.
//
// The raw source text is tokenized (not ts.getTextOfJSDocComment) because positions matter and
// because the text may span several JSDoc lines whose leading `*` must be skipped.
// The result is data only: values are strings; nothing here is ever parsed as TypeScript.
import type * as ts from 'typescript';
import { Code, fail, type Span } from '../diagnostics';

export interface Attribute {
  readonly name: string;
  readonly value: string;
  readonly quoted: boolean;
  readonly nameSpan: Span;
  readonly valueSpan: Span;
}

export interface TagText {
  readonly attributes: readonly Attribute[];
  /** The tag name `@redisLock`: where errors about the whole tag point. */
  readonly tagSpan: Span;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

export function readTagText(sourceFile: ts.SourceFile, tag: ts.JSDocTag): TagText {
  const tagStart = tag.tagName.getStart(sourceFile) - 1; // include the `@`
  const tagSpan: Span = { file: sourceFile, start: tagStart, length: tag.tagName.end - tagStart };
  const base = tag.tagName.end;
  let text = sourceFile.text.slice(base, tag.end);
  const close = text.lastIndexOf('*/');
  if (close >= 0 && text.slice(close + 2).trim() === '') text = text.slice(0, close);
  return { attributes: tokenize(sourceFile, text, base), tagSpan };
}

function tokenize(sourceFile: ts.SourceFile, text: string, base: number): Attribute[] {
  const span = (from: number, to: number): Span => ({
    file: sourceFile,
    start: base + from,
    length: Math.max(1, to - from),
  });
  const attributes: Attribute[] = [];
  let i = 0;
  const skipSpace = () => {
    let atLineStart = false;
    while (i < text.length) {
      const c = text[i];
      if (c === '\n') atLineStart = true;
      else if (c === '*' && atLineStart)
        atLineStart = false; // the JSDoc line's leading `*`
      else if (!/\s/.test(c)) return;
      i++;
    }
  };
  const wordEnd = (from: number) => {
    let j = from;
    while (j < text.length && !/\s/.test(text[j])) j++;
    return j;
  };
  for (skipSpace(); i < text.length; skipSpace()) {
    NAME.lastIndex = i;
    const name = NAME.exec(text)?.[0];
    if (!name || text[i + name.length] !== '=') {
      const end = wordEnd(i);
      fail(
        Code.MalformedTagText,
        `"${text.slice(i, end)}" is not a name=value attribute; write attributes as name=value, e.g. businessFlag=payOrder keyName=orderNo`,
        span(i, end),
      );
    }
    const nameSpan = span(i, i + name.length);
    i += name.length + 1;
    if (text[i] === '"') {
      const closeQuote = text.indexOf('"', i + 1);
      const newline = text.indexOf('\n', i + 1);
      if (closeQuote < 0 || (newline >= 0 && newline < closeQuote)) {
        fail(
          Code.MalformedTagText,
          `the quoted value of ${name} has no closing quote; close it on the same line`,
          span(i, wordEnd(i)),
        );
      }
      attributes.push({
        name,
        value: text.slice(i + 1, closeQuote),
        quoted: true,
        nameSpan,
        valueSpan: span(i, closeQuote + 1),
      });
      i = closeQuote + 1;
      if (i < text.length && !/\s/.test(text[i])) {
        fail(Code.MalformedTagText, `put white space after the closing quote of ${name}`, span(i, wordEnd(i)));
      }
    } else {
      const end = wordEnd(i);
      if (end === i) fail(Code.MalformedTagText, `${name}= has no value; write ${name}=<value>`, nameSpan);
      attributes.push({ name, value: text.slice(i, end), quoted: false, nameSpan, valueSpan: span(i, end) });
      i = end;
    }
  }
  return attributes;
}
