// The one error funnel. Analysis code throws (or collects) a LockweaveDiagnostic; toTsDiagnostic()
// is the only place that turns one into a ts.Diagnostic. Any other exception is a bug in lockweave
// and is rethrown, so it can never pass for "this method has no lock".
//
// Codes are stable: users grep for them and may suppress nothing by them (they are errors).
//
// | code  | kind                    | when                                                                 |
// |-------|-------------------------|----------------------------------------------------------------------|
// | 93001 | not-async               | the tagged method/function does not return a Promise (synchronous)   |
// | 93002 | generator               | a generator or async generator                                       |
// | 93003 | accessor-or-constructor | a getter, setter or constructor                                      |
// | 93004 | no-body                 | a declaration without a body (abstract, overload, declare)           |
// | 93005 | not-a-function          | the tag stands on a class, property, variable, ...                   |
// | 93006 | overload-signature      | the tag stands on an overload signature, not on the implementation  |
// | 93007 | after-decorator         | the JSDoc block stands after a decorator and attaches to nothing     |
// | 93008 | arrow-field             | a class field holding an arrow/function expression                   |
// | 93009 | jsdoc-not-read          | a tag's JSDoc unreadable: lockweave's parse of the file ≠ tsc's tree |
// | 93010 | unknown-attribute       | an attribute name that is not in the table (typo)                    |
// | 93011 | repeated-attribute      | the same attribute twice, or keyName beside keyNames                 |
// | 93012 | missing-attribute       | businessFlag or keyName missing                                      |
// | 93013 | malformed-value         | lockTime=abc, retries=-1, keyType=XML, a bad businessFlag, ...       |
// | 93014 | malformed-tag-text      | text that is not `name=value` (no `=`, unterminated quote)           |
// | 93015 | unknown-parameter       | keyName's first segment is not a parameter                           |
// | 93016 | destructured-parameter  | keyName names a binding inside a destructured parameter              |
// | 93017 | unknown-property        | a keyName path segment / fieldName is not a property of the type     |
// | 93018 | key-type                | the key's type is not a key; one keyNames path that is not a list    |
// | 93019 | field-name-required     | keyType CLASS/JSON without fieldName                                 |
// | 93020 | field-name-unexpected   | fieldName with VALUE or a composite key; keyType/fieldName + keyNames |
// | 93021 | on-fail-not-class       | onFail names something that is not a class in scope                  |
// | 93022 | plugin-config           | a bad plugin option in tsconfig (`prefix`, `defaults`)               |
// | 93023 | not-a-path              | a keyName/keyNames/signal/onFail/fieldName value that is no path     |
// | 93024 | ignored-block           | a JSDoc block that attaches to nothing / is not the last block       |
// | 93025 | not-the-tag             | `@RedisLock` (another case), `@redis-lock` (a near miss), the tag in a `//` or `/* */` comment, or written with `\u` escapes, invisible or look-alike characters |
// | 93026 | repeated-tag            | two @redisLock tags on one declaration                               |
// | 93027 | skip-return-type        | onFail=skip on a function whose declared result cannot be undefined  |
// | 93028 | signal-type             | signal= names a value that is not an AbortSignal (or undefined)      |
// | 93029 | lock-order-cycle        | a call on a cycle of locks taken in opposite orders (check/lock-order) |
// | 93030 | rebuilt-before-weave    | a transformer before lockweave's (tspc) rebuilt or removed a tagged function |
// | 93031 | html-like-comment       | `<!--`, or `-->` first on a line, in a file with tag text (parse/html-comments) |
//
// 93009 was "the compiler did not parse JSDoc" while lockweave needed ts-patch's parseAllJsDoc;
// since lockweave reads the JSDoc of tagged files itself (parse/jsdoc-view.ts) it guards the one
// way left for a tag to go unread: that reading failing to pair up with the compiler's tree.
import type * as ts from 'typescript';

export const Code = {
  NotAsync: 93001,
  Generator: 93002,
  AccessorOrConstructor: 93003,
  NoBody: 93004,
  NotAFunction: 93005,
  OverloadSignature: 93006,
  AfterDecorator: 93007,
  ArrowField: 93008,
  JsDocNotRead: 93009,
  UnknownAttribute: 93010,
  RepeatedAttribute: 93011,
  MissingAttribute: 93012,
  MalformedValue: 93013,
  MalformedTagText: 93014,
  UnknownParameter: 93015,
  DestructuredParameter: 93016,
  UnknownProperty: 93017,
  KeyType: 93018,
  FieldNameRequired: 93019,
  FieldNameUnexpected: 93020,
  OnFailNotClass: 93021,
  PluginConfig: 93022,
  NotAPath: 93023,
  IgnoredBlock: 93024,
  NotTheTag: 93025,
  RepeatedTag: 93026,
  SkipReturnType: 93027,
  SignalType: 93028,
  LockOrderCycle: 93029,
  RebuiltBeforeWeave: 93030,
  HtmlLikeComment: 93031,
} as const;

export type CodeNumber = (typeof Code)[keyof typeof Code];

/** A place in a file: absolute character offsets. `file` undefined = a global (config) error. */
export interface Span {
  readonly file: ts.SourceFile | undefined;
  readonly start: number;
  readonly length: number;
}

export class LockweaveDiagnostic extends Error {
  constructor(
    readonly code: CodeNumber,
    /** Without the `@redisLock:` prefix; it is added in one place, below. */
    readonly text: string,
    readonly span: Span,
  ) {
    super(`@redisLock: ${text}`);
    this.name = 'LockweaveDiagnostic';
  }
}

export function fail(code: CodeNumber, text: string, span: Span): never {
  throw new LockweaveDiagnostic(code, text, span);
}

/** Runs one unit of analysis; a LockweaveDiagnostic becomes a result, anything else is a bug. */
export function attempt<T>(run: () => T): { ok: true; value: T } | { ok: false; error: LockweaveDiagnostic } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    if (error instanceof LockweaveDiagnostic) return { ok: false, error };
    throw error;
  }
}

/** Where an error is, 1-based: `src/pay.ts:12:7`, or 'lockweave plugin options' for an error of no file. */
export function locate(error: LockweaveDiagnostic): { where: string; fileName: string; line: number; column: number } {
  const file = error.span.file;
  if (!file) return { where: 'lockweave plugin options', fileName: 'lockweave plugin options', line: 0, column: 0 };
  const { line, character } = file.getLineAndCharacterOfPosition(error.span.start);
  return {
    where: `${file.fileName}:${line + 1}:${character + 1}`,
    fileName: file.fileName,
    line: line + 1,
    column: character + 1,
  };
}

/** `src/pay.ts:12:7 - error TS93010: @redisLock: …`, the line every route that throws prints. */
export function formatError(error: LockweaveDiagnostic): string {
  return `${locate(error).where} - error TS${error.code}: ${error.message}`;
}

export function toTsDiagnostic(tsApi: typeof ts, error: LockweaveDiagnostic): ts.Diagnostic {
  return {
    file: error.span.file,
    start: error.span.file ? error.span.start : undefined,
    length: error.span.file ? error.span.length : undefined,
    messageText: error.message,
    category: tsApi.DiagnosticCategory.Error,
    code: error.code,
    source: 'lockweave',
  };
}
