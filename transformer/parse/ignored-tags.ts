// Finds `@redisLock` JSDoc comments the compiler attached to nothing. Each is a tag the user
// believes locks a method while the build would ship it unlocked, so each is an error:
// a block after a decorator, a block that is not the last one before a declaration, a block
// floating where no declaration follows, and — for every block — JSDoc parsing switched off.
import type * as ts from 'typescript';
import { Code, LockweaveDiagnostic, type Span } from '../diagnostics';

const TAG_IN_TEXT = /@redisLock(?![A-Za-z0-9_$])/;

export function findIgnoredTags(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  attachedCommentStarts: ReadonlySet<number>,
): LockweaveDiagnostic[] {
  const errors: LockweaveDiagnostic[] = [];
  for (const comment of tagComments(tsApi, sourceFile)) {
    if (attachedCommentStarts.has(comment.pos)) continue;
    const offset = sourceFile.text.slice(comment.pos, comment.end).search(TAG_IN_TEXT);
    const span: Span = { file: sourceFile, start: comment.pos + offset, length: '@redisLock'.length };
    errors.push(classify(tsApi, sourceFile, comment, span));
  }
  return errors;
}

/** JSDoc-style comments (`/** … *\/`) that mention the tag, found through the parse tree so that
 * text inside strings and templates is never mistaken for a comment. */
function tagComments(tsApi: typeof ts, sourceFile: ts.SourceFile): ts.CommentRange[] {
  const seen = new Map<number, ts.CommentRange>();
  const text = sourceFile.text;
  const visit = (node: ts.Node): void => {
    for (const range of tsApi.getLeadingCommentRanges(text, node.pos) ?? []) {
      const body = text.slice(range.pos, range.end);
      if (body.startsWith('/**') && TAG_IN_TEXT.test(body)) seen.set(range.pos, range);
    }
    for (const child of node.getChildren(sourceFile)) visit(child);
  };
  visit(sourceFile);
  return [...seen.values()];
}

function classify(tsApi: typeof ts, sourceFile: ts.SourceFile, comment: ts.CommentRange, span: Span): LockweaveDiagnostic {
  const owner = declarationAround(tsApi, sourceFile, comment);
  if (owner && decoratorBefore(tsApi, owner, comment)) {
    return new LockweaveDiagnostic(Code.AfterDecorator, 'this JSDoc block stands after a decorator and attaches to nothing, so the method would not be locked; move the /** @redisLock ... */ block above the decorators', span);
  }
  const parsingMode = (sourceFile as { jsDocParsingMode?: number }).jsDocParsingMode;
  const ownBlocks = owner ? ((owner as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []) : [];
  if (ownBlocks.some((block) => block.pos === comment.pos)) {
    return new LockweaveDiagnostic(Code.IgnoredBlock, 'only the last JSDoc block before a declaration carries tags, so this one is ignored; merge it into the last /** */ block', span);
  }
  if ((parsingMode !== undefined && parsingMode !== 0) || (owner && ownBlocks.length === 0)) {
    return new LockweaveDiagnostic(Code.JsDocNotParsed, 'the compiler did not parse JSDoc in this file, so no tag is seen and nothing would be locked; JSDoc parsing (parseAllJsDoc) is off: the "tsp": { "tscOptions": { "parseAllJsDoc": true } } setting in the package.json beside lockweave/transformer was not read — build with ts-patch (tspc) and the plugin entry "transform": "lockweave/transformer"', span);
  }
  return new LockweaveDiagnostic(Code.IgnoredBlock, 'this JSDoc block attaches to no declaration, so it locks nothing; put it directly above an async method or async function', span);
}

/** The declaration whose text the comment sits in front of or inside (before its name). */
function declarationAround(tsApi: typeof ts, sourceFile: ts.SourceFile, comment: ts.CommentRange): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (node.pos > comment.pos || node.end < comment.end) return;
    if (node.pos <= comment.pos && node.getStart(sourceFile) >= comment.end && node.kind !== tsApi.SyntaxKind.SourceFile) {
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
