// Finds every `@redisLock` tag the parser attaches to a declaration, once per tag.
//
// Cost matters here: the walk runs on every file of every build. It starts from the places where
// the text says `@redisLock` and descends only into nodes whose range holds one of them, because
// a JSDoc block lies in its declaration's leading trivia, inside the declaration's range.
import type * as ts from 'typescript';
import { holdsDisguisedName, LOCK_ATTRIBUTES, mayHoldTagText } from '../../runtime/base/tag-text';
import type { JsDocView } from './jsdoc-view';
import { disguisedNameAt, mayStartWithR, plainName, readsNearTag } from './written-name';

export const TAG_NAME = 'redisLock';
const TAG_TEXT = `@${TAG_NAME}`;

/**
 * Cheap enough for every file a tool loads: false means no tag in any spelling, nothing to do.
 * (This module loads nothing, so a route can ask before it loads the weaver and TypeScript.)
 */
export function mayHoldTag(code: string): boolean {
  return mayHoldTagText(code);
}

/**
 * Every `@redisLock` in any letter case (`@RedisLock`, the Java original's spelling, `@redislock`),
 * and every near miss that starts a word (`@redis-lock`, `@redis_lock`, `@redisLocks`,
 * `@RedisLocked`): a tag the compiler would ignore for its spelling is an error, not a comment.
 * So is each of these written with `\u` escapes (which the compiler decodes: to it
 * `@redis\u004cock` is the tag), invisible characters or look-alike letters (written-name.ts).
 */
export function tagMentions(text: string): number[] {
  const found: number[] = [];
  MENTION.lastIndex = 0;
  for (let match = MENTION.exec(text); match; match = MENTION.exec(text)) found.push(match.index);
  // Only a text with an @ before an escape or a non-ASCII character pays for the second look.
  if (!holdsDisguisedName(text)) return found;
  const disguised: number[] = [];
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    const written = mayStartWithR(text, at) ? disguisedNameAt(text, at) : undefined;
    if (written === undefined || found.includes(at)) continue;
    MENTION_AT.lastIndex = 1;
    const before = text.charAt(at - 1) || ' ';
    if (MENTION_AT.test(`${before}${plainName(written)}`) || (!/[\w$]/.test(before) && readsNearTag(written)))
      disguised.push(at);
  }
  return disguised.length === 0 ? found : [...found, ...disguised].sort((a, b) => a - b);
}

/**
 * Where the text writes a lock tag's attribute (`businessFlag=`, `keyName=`, any letter case; see
 * runtime/base/tag-text.ts): every tag that locks writes businessFlag, so in a comment that names no
 * tag, in any spelling, they are a tag under a name the compiler does not read as it (`@redisLok`,
 * `@redis Lock`) — an error where it stands (ignored-tags.ts, findAttributesWithoutTag).
 */
export function attributeMentions(text: string): number[] {
  const found: number[] = [];
  LOCK_ATTRIBUTES.lastIndex = 0;
  for (let match = LOCK_ATTRIBUTES.exec(text); match; match = LOCK_ATTRIBUTES.exec(text)) found.push(match.index);
  return found;
}

const MENTION_TEXT = '@redislock(?![A-Za-z0-9_$])|(?<![\\w$])@redis[-_.]?lock[\\w$]*';
const MENTION = new RegExp(MENTION_TEXT, 'gi');
/** MENTION at one place of a name read plain, after the character before its `@`. */
const MENTION_AT = new RegExp(`(?:${MENTION_TEXT})`, 'iy');

/**
 * `@redisLock` itself, written in plain ASCII, not the start of a longer name: not `@redisLocks`,
 * `@redisLock-x` (the JSDoc scanner takes a `-` into the name), a `\u` escape after it or a
 * letter outside ASCII (`@redisLock` + a Cyrillic е), which the compiler all reads as one name.
 */
export function isExactTag(text: string, at: number): boolean {
  return (
    text.startsWith(TAG_TEXT, at) && !NAME_GOES_ON.test(text.slice(at + TAG_TEXT.length, at + TAG_TEXT.length + 2))
  );
}

/** What continues a tag name for the JSDoc scanner: an identifier character, `-`, or a `\u` escape. */
const NAME_GOES_ON = /^(?:[\w$-]|\\u|[\p{ID_Continue}\u200c\u200d])/u;

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
      // The compiler decodes escapes in a tag name; one it reads as the tag but written otherwise
      // is not taken here, and is reported where it stands (ignored-tags.ts).
      if (tag.tagName.text === TAG_NAME && isExactTag(sourceFile.text, tag.tagName.getStart(sourceFile) - 1)) {
        found.push({ host: node, block: last, tag });
      }
    }
    tsApi.forEachChild(node, visit);
  };
  tsApi.forEachChild(sourceFile, visit);
  return found;
}
