// Finds `@redisLock` comments the compiler attached to nothing, or that it reads as no tag at all.
// Each is a tag the user believes locks a method while the build would ship it unlocked, so each
// is an error: a block after a decorator, a block that is not the last one before a declaration,
// a block floating where no declaration follows, a tag in another letter case (`@RedisLock`), a
// tag in a `//` or `/* */` comment, and — for every block — a file whose JSDoc could not be read.
import type * as ts from 'typescript';
import { Code, LockweaveDiagnostic, type Span } from '../diagnostics';
import { isExactTag, type TaggedDeclaration } from './find-tags';
import type { JsDocView } from './jsdoc-view';
import { decodedName, disguisedNameAt, hasEscape, visibleName } from './written-name';

export interface IgnoredTag {
  readonly error: LockweaveDiagnostic;
  /** The declaration the comment stands before, whose function is emitted as a throw. */
  readonly owner: ts.Node | undefined;
}

/**
 * `mentions` are where the text says `@redisLock` in any case (see tagMentions); exact tags inside
 * a block the parser attached (`tagged`) are skipped. Each other one is looked up in the comments of
 * the parse tree, so that text inside strings and templates is never mistaken for a comment.
 */
export function findIgnoredTags(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  mentions: readonly number[],
  tagged: readonly TaggedDeclaration[],
  jsDoc: JsDocView,
): IgnoredTag[] {
  const text = sourceFile.text;
  const attachedStarts = new Set(tagged.map(({ block }) => block.pos));
  const found: IgnoredTag[] = [];
  const seen = new Set<number>();
  for (const position of mentions) {
    const exact = isExactTag(text, position);
    const attached = tagged.find(({ block }) => block.pos <= position && position < block.end);
    if (attached && exact) continue;
    const comment = attached ? undefined : commentAt(tsApi, sourceFile, position);
    if (!attached && !comment) continue; // in a string, a template or code: not a comment
    const start = attached ? attached.block.pos : comment!.range.pos;
    if (seen.has(start) || (!attached && attachedStarts.has(start))) continue;
    seen.add(start);
    const span: Span = { file: sourceFile, start: position, length: TAG.length };
    if (attached) {
      found.push({ error: misspelled(text, position, span), owner: attached.host });
      continue;
    }
    const { range, trailing } = comment!;
    const owner = declarationAround(tsApi, sourceFile, range);
    const isJsDoc = text.startsWith('/**', range.pos) && !text.startsWith('/**/', range.pos);
    const error = !exact
      ? misspelled(text, position, span)
      : !isJsDoc
        ? notJsDoc(tsApi, range, span)
        : classify(tsApi, jsDoc, owner, range, trailing, span);
    found.push({ error, owner });
  }
  return found;
}

/**
 * `attributes` are where the text writes a lock tag's attributes (attributeMentions). One in a JSDoc
 * block that names no tag in any spelling (`mentions`) and is not a tagged block (`tagged`) is a tag
 * the compiler reads under another name or none (a misspelled name, a space after the at sign, a
 * fullwidth at sign) and would leave unlocked: an error, once per comment, at the name when one reads
 * close to the tag. In a line or plain block comment, only under a name that reads close to the tag.
 */
export function findAttributesWithoutTag(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  attributes: readonly number[],
  mentions: readonly number[],
  tagged: readonly TaggedDeclaration[],
): IgnoredTag[] {
  const found: IgnoredTag[] = [];
  const seen = new Set<number>();
  for (const position of attributes) {
    if (tagged.some(({ block }) => block.pos <= position && position < block.end)) continue;
    const comment = commentAt(tsApi, sourceFile, position);
    if (!comment) continue; // in a string, a template or code: not a comment
    const { range } = comment;
    // A comment that names a tag in any spelling is judged by that name (findIgnoredTags).
    if (seen.has(range.pos) || mentions.some((at) => range.pos <= at && at < range.end)) continue;
    seen.add(range.pos);
    // Outside a /** */ block — where tags live — attributes are as likely prose (`// keyName=x is
    // refused`) as a tag; there only a name that reads close to the tag makes them one.
    const isJsDoc = sourceFile.text.startsWith('/**', range.pos) && !sourceFile.text.startsWith('/**/', range.pos);
    if (!isJsDoc && !nearTagName(sourceFile.text.slice(range.pos, position), range.pos)) continue;
    found.push({
      error: attributesWithoutTag(sourceFile, range, position),
      owner: declarationAround(tsApi, sourceFile, range),
    });
  }
  return found;
}

const TAG = '@redisLock';

function attributesWithoutTag(
  sourceFile: ts.SourceFile,
  range: ts.CommentRange,
  position: number,
): LockweaveDiagnostic {
  const text = sourceFile.text;
  const attribute = /\w+=/y;
  attribute.lastIndex = position;
  const written = attribute.exec(text)![0];
  const near = nearTagName(text.slice(range.pos, position), range.pos);
  if (near)
    return new LockweaveDiagnostic(
      Code.NotTheTag,
      `${near.name} is not ${TAG}: the comment holds a lock tag's attributes (${written}…) under a tag the compiler reads by another name, and nothing would be locked; write ${TAG}`,
      { file: sourceFile, start: near.start, length: near.name.length },
    );
  return new LockweaveDiagnostic(
    Code.NotTheTag,
    `this comment holds a lock tag's attributes (${written}…) but no ${TAG} tag, so nothing would be locked; ` +
      `write /** ${TAG} ${written}… */ directly above the async method or function, or write the text otherwise (${written.slice(0, -1)}: …)`,
    { file: sourceFile, start: position, length: written.length },
  );
}

/** The last `@name` before an attribute in its comment that reads close to the tag (2 edits or fewer, any case), if any. */
function nearTagName(before: string, offset: number): { name: string; start: number } | undefined {
  let near: { name: string; start: number } | undefined;
  for (const match of before.matchAll(/@[\w$.-]+/g)) {
    if (
      editDistance(
        match[0]
          .slice(1)
          .toLowerCase()
          .replace(/[^a-z]/g, ''),
        'redislock',
      ) <= 2
    )
      near = { name: match[0], start: offset + match.index };
  }
  return near;
}

/** Edits (insert, delete, replace, swap two neighbours) between two short words. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

function misspelled(text: string, position: number, span: Span): LockweaveDiagnostic {
  const disguised = disguisedNameAt(text, position);
  if (disguised !== undefined) return disguisedName(disguised.replace(/\.$/, ''), span);
  const written = /@[\w$.-]*/y;
  written.lastIndex = position;
  const name = written.exec(text)![0].replace(/\.$/, '');
  const why =
    name.toLowerCase() === TAG.toLowerCase()
      ? 'tag names are case-sensitive, so the compiler ignores this one'
      : 'the compiler reads it as a tag of another name';
  return new LockweaveDiagnostic(
    Code.NotTheTag,
    `${name} is not ${TAG}: ${why} and nothing would be locked; write ${TAG}`,
    { ...span, length: name.length },
  );
}

/**
 * A name written with `\u` escapes, invisible characters or look-alike letters (written-name.ts).
 * Escapes that spell the tag are the tag to the compiler, but lockweave takes the tag only as written
 * plainly (written-name.ts says why): the user is told to write it so.
 */
function disguisedName(written: string, span: Span): LockweaveDiagnostic {
  const problem = hasEscape(written)
    ? decodedName(written) === TAG
      ? `it spells ${TAG} with \\u escapes, which lockweave does not read as the tag`
      : 'the compiler decodes its \\u escapes and reads a tag of another name'
    : `it holds characters outside ASCII (${nonAscii(written)}: invisible, or looking like Latin letters), so the compiler reads a tag of another name`;
  const fix = hasEscape(written) ? 'write the tag name without escapes' : 'write the tag name in plain ASCII';
  return new LockweaveDiagnostic(
    Code.NotTheTag,
    `${visibleName(written)} is not ${TAG}: ${problem}, and nothing would be locked; ${fix}: ${TAG}`,
    { ...span, length: written.length },
  );
}

/** The characters outside ASCII, as code points: `U+200D, U+0435`. */
function nonAscii(written: string): string {
  const points = [...written]
    .filter((c) => c > '\x7f')
    .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return [...new Set(points)].join(', ');
}

function notJsDoc(tsApi: typeof ts, range: ts.CommentRange, span: Span): LockweaveDiagnostic {
  const kind = range.kind === tsApi.SyntaxKind.SingleLineCommentTrivia ? 'a // comment' : 'a /* */ comment';
  return new LockweaveDiagnostic(
    Code.NotTheTag,
    `${TAG} in ${kind} is no tag: only a /** */ JSDoc block carries tags, so nothing would be locked; write /** ${TAG} ... */ directly above an async method or async function`,
    span,
  );
}

interface FoundComment {
  readonly range: ts.CommentRange;
  /** On the line of the token before it: the compiler never attaches such a block to what follows. */
  readonly trailing: boolean;
}

/**
 * The comment holding `position`, as the compiler sees comments: in the trivia before
 * the token whose trivia holds the position, either a leading comment of that token or — on the
 * line of the token before — a trailing comment of that one (`@dec /** @redisLock *\/ async m()`,
 * `{ /** @redisLock *\/ }`). The compiler attaches only leading blocks on lines of their own.
 */
function commentAt(tsApi: typeof ts, sourceFile: ts.SourceFile, position: number): FoundComment | undefined {
  const tokenStart = triviaOwner(tsApi, sourceFile, position);
  if (tokenStart === undefined) return undefined;
  const text = sourceFile.text;
  const holds = (range: ts.CommentRange) => range.pos <= position && position < range.end;
  const trailing = tsApi.getTrailingCommentRanges(text, tokenStart)?.find(holds);
  if (trailing) return { range: trailing, trailing: true };
  const leading = tsApi.getLeadingCommentRanges(text, tokenStart)?.find(holds);
  return leading && { range: leading, trailing: false };
}

/**
 * The full start of the token whose leading trivia holds `position`, or undefined when the
 * position is inside a token (a string, a template, JSX text). Descends to the innermost node
 * around the position; if no child holds it, it lies before a token of that node itself
 * (`{`, `)`, a keyword), found by scanning only the gap between the neighbouring children.
 */
function triviaOwner(tsApi: typeof ts, sourceFile: ts.SourceFile, position: number): number | undefined {
  let node: ts.Node = sourceFile;
  for (;;) {
    let inner: ts.Node | undefined;
    let hasChildren = false;
    let gapStart = node.pos;
    let gapEnd = node.end;
    const around = (start: number, end: number) => {
      if (end <= position) gapStart = Math.max(gapStart, end);
      else if (start > position) gapEnd = Math.min(gapEnd, start);
    };
    const holds = (child: ts.TextRange) => child.pos <= position && position < child.end;
    tsApi.forEachChild(
      node,
      (child) => {
        hasChildren = true;
        if (holds(child)) return (inner = child);
        around(child.pos, child.end);
        return undefined;
      },
      (children) => {
        hasChildren = true;
        if (!holds(children)) return around(children.pos, children.end);
        // Inside the list: in an element, or before a separator (`,`) between elements.
        gapStart = Math.max(gapStart, children.pos);
        gapEnd = Math.min(gapEnd, children.end);
        for (const child of children) {
          if (holds(child)) return (inner = child);
          around(child.pos, child.end);
        }
        return undefined;
      },
    );
    if (inner) {
      node = inner;
      continue;
    }
    if (!hasChildren && tsApi.isToken(node)) {
      // A single token: a name, a literal, a template piece, JSX text.
      return position < node.getStart(sourceFile) ? node.pos : undefined;
    }
    return tokenInGap(tsApi, sourceFile, gapStart, gapEnd, position);
  }
}

/** Scans the node's own tokens between two children (punctuation and keywords only). */
function tokenInGap(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  start: number,
  end: number,
  position: number,
): number | undefined {
  const scanner = tsApi.createScanner(
    sourceFile.languageVersion,
    true,
    sourceFile.languageVariant,
    sourceFile.text,
    undefined,
    start,
    end - start,
  );
  for (let kind = scanner.scan(); kind !== tsApi.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (position < scanner.getTokenStart()) return scanner.getTokenFullStart();
    if (position < scanner.getTokenEnd()) return undefined;
  }
  return undefined;
}

function classify(
  tsApi: typeof ts,
  jsDoc: JsDocView,
  owner: ts.Node | undefined,
  comment: ts.CommentRange,
  trailing: boolean,
  span: Span,
): LockweaveDiagnostic {
  if (owner && decoratorBefore(tsApi, owner, comment)) {
    return new LockweaveDiagnostic(
      Code.AfterDecorator,
      'this JSDoc block stands after a decorator and attaches to nothing, so the method would not be locked; move the /** @redisLock ... */ block above the decorators',
      span,
    );
  }
  if (trailing) {
    return new LockweaveDiagnostic(
      Code.IgnoredBlock,
      'this JSDoc block shares a line with the code before it, so the compiler attaches it to nothing and nothing would be locked; put the /** @redisLock ... */ block on its own line directly above an async method or async function',
      span,
    );
  }
  if (!jsDoc.readable) {
    // No path read this file's JSDoc (jsdoc-view.ts): whether the block carries the tag is unknown,
    // and guessing "no" would ship the method unlocked.
    return new LockweaveDiagnostic(
      Code.JsDocNotRead,
      "lockweave could not read the JSDoc of this file (its own parse of the file did not match the compiler's), so it cannot tell whether this tag locks anything, and the method is emitted as a throw of this error; please report this, with the file, as a lockweave bug",
      span,
    );
  }
  if (owner && jsDoc.blocksOf(owner).some((block) => block.pos === comment.pos)) {
    return new LockweaveDiagnostic(
      Code.IgnoredBlock,
      'only the last JSDoc block before a declaration carries tags, so this one is ignored; merge it into the last /** */ block',
      span,
    );
  }
  return new LockweaveDiagnostic(
    Code.IgnoredBlock,
    'this JSDoc block attaches to no declaration, so it locks nothing; put it directly above an async method or async function',
    span,
  );
}

/** The declaration whose text the comment sits in front of or inside (before its name). */
function declarationAround(tsApi: typeof ts, sourceFile: ts.SourceFile, comment: ts.CommentRange): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (node.pos > comment.pos || node.end < comment.end) return;
    if (
      node.pos <= comment.pos &&
      node.getStart(sourceFile) >= comment.end &&
      node.kind !== tsApi.SyntaxKind.SourceFile
    ) {
      found ??= node; // the outermost node whose leading trivia holds the comment
    }
    if (tsApi.canHaveDecorators(node) && decoratorBefore(tsApi, node, comment)) found = node;
    tsApi.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

function decoratorBefore(tsApi: typeof ts, node: ts.Node, comment: ts.CommentRange): boolean {
  if (!tsApi.canHaveDecorators(node)) return false;
  const decorators = tsApi.getDecorators(node) ?? [];
  const name = (node as { name?: ts.Node }).name;
  return decorators.some((d) => d.end <= comment.pos) && (!name || name.pos >= comment.pos);
}
