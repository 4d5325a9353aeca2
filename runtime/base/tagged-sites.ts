// Which methods a file's tags stand on, read from its text without a parser: the runtime has no
// TypeScript. Asked in a jest test context (weave-mark.ts) of a module that defined locks as it
// loaded: woven code defines one lock per tagged method, under the method's site
// (`OrderService.pay`, `orders.pay`, `settle`: the transformer's check/target.ts), and a module
// that defines some other lock by hand — defineLock() is public — is no proof that its tagged
// methods were woven. Each `/**` block that holds a tag names the declaration after it: decorators
// and modifiers aside, its name. A declaration this reading cannot name is reported as such
// (undefined), and the caller counts the file as not shown woven.
import { MAY_HOLD_TAG } from './tag-text';

/** The name of the declaration after each tagged `/**` block, in order; undefined where it cannot be read. */
export function taggedDeclarationNames(text: string): (string | undefined)[] {
  const names: (string | undefined)[] = [];
  for (let open = text.indexOf('/**'); open >= 0; ) {
    const close = text.indexOf('*/', open + 3);
    const end = close < 0 ? text.length : close + 2;
    if (MAY_HOLD_TAG.test(text.slice(open, end))) names.push(close < 0 ? undefined : declarationName(text, end));
    open = text.indexOf('/**', end);
  }
  return names;
}

/** True when one of `sites` is the site of a method or function called `name` (its owner aside). */
export function namesSite(name: string, sites: ReadonlySet<string>): boolean {
  for (const site of sites) if (site === name || site.endsWith(`.${name}`)) return true;
  return false;
}

/** Words that may stand before a method's or function's name (`get`, `set`: a tag there is an error, named by the weave). */
const MODIFIERS = new Set([
  'export',
  'default',
  'declare',
  'public',
  'private',
  'protected',
  'static',
  'override',
  'readonly',
  'abstract',
  'accessor',
  'async',
  'get',
  'set',
]);

const IDENTIFIER = /[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*/y;
const NUMBER = /[0-9][\w.]*/y;
/** Bound on the words and decorators read before a name: a declaration has few. */
const MAX_STEPS = 64;

/** The name of the method or function declared from `start` on, as the transformer writes it in a site. */
function declarationName(text: string, start: number): string | undefined {
  let at = start;
  for (let step = 0; step < MAX_STEPS; step++) {
    at = skipTrivia(text, at);
    const c = text[at];
    if (c === '@') {
      at = skipDecorator(text, at + 1);
      if (at < 0) return undefined;
      continue;
    }
    if (c === '*') {
      at++; // a generator's star (an error, named by the weave)
      continue;
    }
    if (c === '#') return readWord(IDENTIFIER, text, at + 1, (word) => `#${word}`);
    if (c === '"' || c === "'" || c === '`') {
      const closing = text.indexOf(c, at + 1);
      return closing < 0 ? undefined : text.slice(at + 1, closing);
    }
    if (c === '[') return '[computed]';
    if (c === '(' || c === '<') return 'default'; // `export default async function (…)`
    if (c !== undefined && /[0-9]/.test(c)) return readWord(NUMBER, text, at, (word) => String(Number(word)));
    IDENTIFIER.lastIndex = at;
    const word = IDENTIFIER.exec(text)?.[0];
    if (word === undefined) return undefined;
    at += word.length;
    const next = text[skipTrivia(text, at)];
    // A modifier's word followed by a parameter list, a type parameter list or `?`/`!` is itself the name.
    const isName = next === '(' || next === '<' || next === '?' || next === '!';
    if (word === 'function' || (MODIFIERS.has(word) && !isName)) continue;
    return word;
  }
  return undefined;
}

function readWord(pattern: RegExp, text: string, at: number, name: (word: string) => string): string | undefined {
  pattern.lastIndex = at;
  const word = pattern.exec(text)?.[0];
  return word === undefined ? undefined : name(word);
}

/** Past white space and comments. */
function skipTrivia(text: string, start: number): number {
  let at = start;
  for (;;) {
    while (at < text.length && /\s/.test(text[at])) at++;
    if (text.startsWith('//', at)) {
      const end = text.indexOf('\n', at);
      at = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      at = end < 0 ? text.length : end + 2;
    } else {
      return at;
    }
  }
}

/** Past `Name.path(arguments)` after an `@`; -1 where its parentheses do not close. */
function skipDecorator(text: string, start: number): number {
  let at = skipTrivia(text, start);
  const name = /[\w$.]+/y;
  name.lastIndex = at;
  const written = name.exec(text)?.[0];
  if (written === undefined) return -1;
  at = skipTrivia(text, at + written.length);
  if (text[at] !== '(') return at;
  let depth = 0;
  for (; at < text.length; at++) {
    const c = text[at];
    if (c === '"' || c === "'" || c === '`') {
      const closing = text.indexOf(c, at + 1);
      if (closing < 0) return -1;
      at = closing;
    } else if (c === '(') {
      depth++;
    } else if (c === ')' && --depth === 0) {
      return at + 1;
    }
  }
  return -1;
}
