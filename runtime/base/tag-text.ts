// The one test for "this text may hold a tag", shared by the routes (which skip a file without
// one before loading the weaver) and the runtime (which asks it of TypeScript files a process ran
// without a route). Any letter case, and near misses (redis-lock, redis_lock, redisLocks after the
// @): a tag the compiler would ignore for its spelling is still one the user meant, and an error.
// Spelled in two parts: the runtime runs from its TypeScript source in the repo's own tests, and
// would find the tag's text in this file.
//
// Also any @ whose name holds a \u escape or a character outside ASCII: the compiler decodes the
// escapes of a JSDoc tag name (the tag written with `\u004c` for its L is the tag itself), and an
// invisible or look-alike character (a zero-width joiner, a Cyrillic е) makes a name that reads as
// the tag and is not. Which of those names spell the tag is decided by the transformer's
// tagMentions; this test only has to let them through.
//
// And a lock tag's attributes (`businessFlag=`, `keyName=`, in any letter case) wherever they stand:
// every tag that locks writes businessFlag, so a block that holds it under a misspelled name
// (`@redisLok`, `@redis Lock`, `＠redisLock`) is a tag the user meant, and an error where the
// transformer finds it in a comment (find-tags.ts, attributeMentions).
//
// The runtime asks MAY_NAME_TAG, the names alone (see there why). MAY_HOLD_TAG is one regular
// expression, for those who need one (a bundler runs it as a filter
// without calling JavaScript). On a file without a tag it is slower than the plain spelling alone,
// which the engine finds by its literal start, skipping through the text; mayHoldTagText, on the hot
// path of every route, asks the same question as the plain spelling plus a walk from each @.

/**
 * After an @: a name that holds a `\u` escape or a character outside ASCII — but for CJK punctuation,
 * kana, CJK ideographs and Hangul, which read as themselves: one of those before any other
 * character outside ASCII makes a name that does not start with the tag (`@张三` in prose).
 */
const DISGUISED_NAME_TEXT = String.raw`[\w$.-]*(?:\\u|[\u0080-\u2fff\u3100-\u33ff\ua000-\uabff\ud7b0-\uffff])`;

const PLAIN_SPELLING = `${'redis'}[-_.]?lock`;

/** A tag's name after its @, in any spelling the routes take for one. */
const TAG_NAME_TEXT = `@(?:${PLAIN_SPELLING}|${DISGUISED_NAME_TEXT})`;

/**
 * A lock tag's attribute as a tag writes it: `businessFlag=` or `keyName=` and the start of a value,
 * not a property set in code (after a dot).
 */
const LOCK_ATTRIBUTE_TEXT = `(?<![\\w$.])(?:${'business'}Flag|${'key'}Name)=["\\w]`;

/**
 * False means no tag in any spelling and no tag's attributes: nothing there for a route to hand the
 * weaver, which tells comments from strings and code. One group: others embed its source.
 */
export const MAY_HOLD_TAG = new RegExp(`(?:${TAG_NAME_TEXT}|${LOCK_ATTRIBUTE_TEXT})`, 'i');

/**
 * A tag's name in any spelling: what the runtime, which has no parser, takes for a tag in TypeScript
 * that ran unwoven (weave-mark.ts, tagged-sites.ts). Attributes alone are not: in a string or in code
 * (a message naming the attribute and a value) they would refuse a program that holds no tag; a route's weave finds them in comments.
 */
export const MAY_NAME_TAG = new RegExp(TAG_NAME_TEXT, 'i');

/** Every tag name in any spelling, without the attributes (counting a block's tags: tagged-sites.ts). */
export const TAG_NAMES = new RegExp(TAG_NAME_TEXT, 'gi');

/** Every lock tag attribute (LOCK_ATTRIBUTE_TEXT). */
export const LOCK_ATTRIBUTES = new RegExp(LOCK_ATTRIBUTE_TEXT, 'gi');

const PLAIN_TAG = new RegExp(`@${PLAIN_SPELLING}`, 'i');
const LOCK_ATTRIBUTE = new RegExp(LOCK_ATTRIBUTE_TEXT, 'i');

/** MAY_HOLD_TAG.test(text), quicker on the text of a file without a tag. */
export function mayHoldTagText(text: string): boolean {
  return PLAIN_TAG.test(text) || holdsDisguisedName(text) || LOCK_ATTRIBUTE.test(text);
}

/** Whether an @ stands before a disguised name (DISGUISED_NAME_TEXT): from each @, over `[\w$.-]*`, to a `\u` (or `\U`) or a character outside ASCII. */
export function holdsDisguisedName(text: string): boolean {
  let walked = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    // Text with many @ (decorators) and no escape or non-ASCII anywhere is told apart sooner whole.
    if (++walked === MANY_AT && !mayHoldEscapeOrNonAscii(text)) return false;
    let i = at + 1;
    let c = text.charCodeAt(i);
    while (isNameCharacter(c)) c = text.charCodeAt(++i);
    if ((c >= 0x80 && !readsAsItself(c)) || (c === BACKSLASH && (text.charCodeAt(i + 1) | 0x20) === LOWER_U))
      return true;
  }
  return false;
}

const MANY_AT = 32;

/**
 * False when the text holds no `\u`, `\U` and no character outside ASCII. Node's UTF-8 length
 * equals the string's length exactly then, and is counted without a pass in JavaScript; elsewhere
 * a character class (several times slower on a long text).
 */
function mayHoldEscapeOrNonAscii(text: string): boolean {
  if (text.includes('\\u') || text.includes('\\U')) return true;
  return typeof Buffer === 'function' ? Buffer.byteLength(text, 'utf8') !== text.length : NON_ASCII.test(text);
}

const NON_ASCII = /[\u0080-\uffff]/;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;

/** CJK punctuation, kana, CJK ideographs, Hangul: the characters DISGUISED_NAME_TEXT leaves out. */
function readsAsItself(c: number): boolean {
  return (c >= 0x3000 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af);
}

/** `[\w$.-]`: ASCII letters, digits, `_`, `$`, `.`, `-`. */
function isNameCharacter(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x5f ||
    c === 0x24 ||
    c === 0x2e ||
    c === 0x2d
  );
}
