// How a tag name written with escapes, invisible characters or look-alike letters reads.
//
// The compiler decodes `\u` escapes in a JSDoc tag name, so `@redis\u004cock` is the tag to it.
// lockweave takes the tag only as written plainly: the text test that decides on every route whether
// a file is read at all (and the runtime's test of files that ran unwoven) stays one simple search,
// and a tag means the same to every reader. So such a name is an error. An invisible character
// (`@redis` + a zero-width joiner + `Lock`), a compatibility form (the Kelvin sign K) or a Cyrillic
// or Greek letter (`@r` + Cyrillic е + `disLock`) gives a name the compiler reads as another tag,
// while the user reads the tag. Either way nothing would be locked, and each is an error: write
// the tag in plain ASCII. This runs only on names that hold an escape or a non-ASCII character.

/**
 * A tag name as written at `at` (the `@`): the characters the compiler may read as part of it —
 * ASCII name characters and `-` (the JSDoc scanner takes it) and `.`, `\u` escapes, and any
 * non-ASCII character but white space (the invisible ones are white space to `\s` only in part,
 * so they are listed).
 */
const WRITTEN_NAME =
  /@(?:[\w$.-]|\\u\{[0-9A-Fa-f]+\}|\\u[0-9A-Fa-f]{4}|[\u00ad\u200b-\u200f\u2060\ufeff]|(?!\s)[\u0080-\uffff])+/y;

const ESCAPE = /\\u\{([0-9A-Fa-f]+)\}|\\u([0-9A-Fa-f]{4})/g;

/** Zero-width and other format characters a reader does not see, and the soft hyphen. */
const INVISIBLE = /[\u00ad\u200b-\u200f\u2060\ufeff]/g;

/** Cyrillic and Greek letters that look like the Latin letters of the tag's name. */
const LATIN_LOOK_ALIKE: Readonly<Record<string, string>> = {
  е: 'e', // U+0435 Cyrillic
  Е: 'E', // U+0415
  Ε: 'E', // U+0395 Greek
  ԁ: 'd', // U+0501 Cyrillic
  і: 'i', // U+0456 Cyrillic
  І: 'I', // U+0406
  ι: 'i', // U+03B9 Greek
  Ι: 'I', // U+0399
  ѕ: 's', // U+0455 Cyrillic
  Ѕ: 'S', // U+0405
  ӏ: 'l', // U+04CF Cyrillic palochka
  Ӏ: 'l', // U+04C0
  о: 'o', // U+043E Cyrillic
  О: 'O', // U+041E
  ο: 'o', // U+03BF Greek
  Ο: 'O', // U+039F
  с: 'c', // U+0441 Cyrillic
  С: 'C', // U+0421
  ϲ: 'c', // U+03F2 Greek lunate sigma
  Ϲ: 'C', // U+03F9
  к: 'k', // U+043A Cyrillic
  К: 'K', // U+041A
  κ: 'k', // U+03BA Greek
  Κ: 'K', // U+039A
};
const LOOK_ALIKE = new RegExp(`[${Object.keys(LATIN_LOOK_ALIKE).join('')}]`, 'g');

const MAY_START_WITH_R =
  /@[\u00ad\u200b-\u200f\u2060\ufeff]*(?:[rR\\]|(?![\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af])[\u0080-\uffff])/y;

/**
 * Whether the name at `at` may read as one starting with r: its first character past invisible ones
 * is r, R, a `\` (an escape) or a non-ASCII character other than CJK punctuation, kana, CJK ideographs and Hangul
 * (which read as themselves). Spares text with many such names (`@张三`) the whole reading.
 */
export function mayStartWithR(text: string, at: number): boolean {
  MAY_START_WITH_R.lastIndex = at;
  return MAY_START_WITH_R.test(text);
}

/** The name written at `at` (from the `@`), when it holds an escape or a non-ASCII character. */
export function disguisedNameAt(text: string, at: number): string | undefined {
  WRITTEN_NAME.lastIndex = at;
  const written = WRITTEN_NAME.exec(text)?.[0];
  return written && /\\u|[\u0080-\uffff]/.test(written) ? written : undefined;
}

/**
 * The name as a reader takes it: escapes decoded, invisible characters dropped, compatibility
 * forms folded (NFKC: the Kelvin sign is K, a fullwidth ｒ is r) and look-alike letters read as
 * the Latin ones.
 */
export function plainName(written: string): string {
  return decodedName(written)
    .replace(INVISIBLE, '')
    .normalize('NFKC')
    .replace(LOOK_ALIKE, (letter) => LATIN_LOOK_ALIKE[letter]);
}

/**
 * Whether a disguised name reads close to the tag once what is not plain ASCII is taken out of it.
 * A table of look-alike letters (above) can never be whole: Unicode has hundreds of letters that look
 * like r, e, d, i, s, l, o, c or k (Armenian օ, Lisu ꓡ, Cherokee Ꮮ, a dotless ı, a small-capital ᴋ),
 * and invisible characters beyond the format ones (a Hangul filler, a variation selector, a tag
 * character). So the name is also read without them: escapes decoded, compatibility forms and accents
 * taken apart (NFKD) and the accents dropped, look-alikes read as Latin letters, then every character
 * still outside ASCII dropped. Each character so dropped costs the name one letter of the tag; a name
 * whose ASCII that leaves is within TAG_DISTANCE edits of the tag's name, followed by anything (as
 * `@redisLocks` is a near miss), was meant as the tag. Only names that hold an escape or a non-ASCII
 * character come here.
 */
export function readsNearTag(written: string): boolean {
  const skeleton = decodedName(written.slice(1))
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(LOOK_ALIKE, (letter) => LATIN_LOOK_ALIKE[letter])
    .replace(/[\u0080-\uffff]/g, '')
    .replace(/[-_.]/g, '')
    .toLowerCase();
  return prefixDistance(TAG_NAME, skeleton) <= TAG_DISTANCE;
}

const TAG_NAME = `${'redis'}lock`;

/** Two letters of the tag's nine lost or changed: one look-alike or invisible character costs one. */
const TAG_DISTANCE = 2;

/**
 * The fewest edits (insert, delete, change a character) that turn some start of `text` into
 * `pattern`: Levenshtein's table, with whatever follows in `text` free.
 */
function prefixDistance(pattern: string, text: string): number {
  // row[j]: the edits that turn text's first j characters into pattern's first i.
  let row = Array.from({ length: text.length + 1 }, (_, j) => j);
  for (let i = 1; i <= pattern.length; i++) {
    const next = [i];
    for (let j = 1; j <= text.length; j++) {
      const change = row[j - 1]! + (pattern[i - 1] === text[j - 1] ? 0 : 1);
      next.push(Math.min(change, row[j]! + 1, next[j - 1]! + 1));
    }
    row = next;
  }
  return Math.min(...row);
}

/** The name with its `\u` escapes decoded, as the compiler reads it. */
export function decodedName(written: string): string {
  return written.replace(ESCAPE, (written, long: string | undefined, short: string | undefined) => {
    const code = Number.parseInt(long ?? short ?? '', 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : written;
  });
}

/** The name with what a reader cannot see or tell apart shown as `\u` escapes, for messages. */
export function visibleName(written: string): string {
  return written.replace(/[^\x20-\x7e]/gu, (c) => {
    const hex = c.codePointAt(0)!.toString(16).toUpperCase();
    return hex.length <= 4 ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
  });
}

/** Whether the written name holds a `\u` escape (as opposed to only non-ASCII characters). */
export function hasEscape(written: string): boolean {
  return /\\u/.test(written);
}
