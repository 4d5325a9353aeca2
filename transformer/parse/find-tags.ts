// Finds every `@redisLock` tag the parser attaches to a declaration, once per tag.
//
// Cost matters here: the walk runs on every file of every build. It starts from the places where
// the text says `@redisLock` and descends only into nodes whose range holds one of them, because
// a JSDoc block lies in its declaration's leading trivia, inside the declaration's range.
import type * as ts from 'typescript';
import { MAY_HOLD_TAG } from '../../runtime/base/tag-text';
import type { JsDocView } from './jsdoc-view';

export const TAG_NAME = 'redisLock';
const TAG_TEXT = `@${TAG_NAME}`;

/**
 * Cheap enough for every file a tool loads: false means no tag in any spelling, nothing to do.
 * (This module loads nothing, so a route can ask before it loads the weaver and TypeScript.)
 */
export function mayHoldTag(code: string): boolean {
  return MAY_HOLD_TAG.test(code);
}

/**
 * Every `@redisLock` in any letter case (`@RedisLock`, the Java original's spelling, `@redislock`),
 * and every near miss that starts a word (`@redis-lock`, `@redis_lock`, `@redisLocks`,
 * `@RedisLocked`): a tag the compiler would ignore for its spelling is an error, not a comment.
 */
export function tagMentions(text: string): number[] {
  const found: number[] = [];
  MENTION.lastIndex = 0;
  for (let match = MENTION.exec(text); match; match = MENTION.exec(text)) found.push(match.index);
  return found;
}

const MENTION = /@redislock(?![A-Za-z0-9_$])|(?<![\w$])@redis[-_.]?lock[\w$]*/gi;

/** `@redisLock` itself, not the start of a longer name (`@redisLocks`). */
export function isExactTag(text: string, at: number): boolean {
  return text.startsWith(TAG_TEXT, at) && !/[\w$]/.test(text.charAt(at + TAG_TEXT.length));
}

/** True when some position p (sorted) has start <= p < end. */
export function anyWithin(positions: readonly number[], start: number, end: number): boolean {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle] < start) low = middle + 1;
    else high = middle;
  }
  return low < positions.length && positions[low] < end;
}

export interface TaggedDeclaration {
  /** The node the JSDoc block belongs to (a method, a function, a class, a property, ...). */
  readonly host: ts.Node;
  /** The host's last JSDoc block, which holds the tag. */
  readonly block: ts.JSDoc;
  readonly tag: ts.JSDocTag;
}

/**
 * The tags the parser attaches, in tree order. Equivalent to asking ts.getJSDocTags(node) on
 * every node and keeping the tags whose block belongs to the node itself: getJSDocTags reads a
 * node's own tags from its last JSDoc block only (the rest of what it returns belongs to parents:
 * a variable statement's tags, a function's @param), and that block is read here directly.
 * The blocks come from `jsDoc` (see jsdoc-view.ts): tsc itself no longer parses them in .ts files.
 */
export function findTaggedDeclarations(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  positions: readonly number[],
  jsDoc: JsDocView,
): TaggedDeclaration[] {
  const found: TaggedDeclaration[] = [];
  const visit = (node: ts.Node): void => {
    if (!anyWithin(positions, node.pos, node.end)) return;
    const blocks = jsDoc.blocksOf(node);
    const last = blocks[blocks.length - 1];
    for (const tag of last?.tags ?? []) {
      if (tag.tagName.text === TAG_NAME) found.push({ host: node, block: last, tag });
    }
    tsApi.forEachChild(node, visit);
  };
  tsApi.forEachChild(sourceFile, visit);
  return found;
}
