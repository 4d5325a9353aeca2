// Which sites a file's tags stand on, read from its text without a parser: the runtime has no
// TypeScript. Asked in a jest test context (weave-mark.ts) of a module that defined locks as it
// loaded: woven code defines one lock per tagged method, under the site the transformer writes for
// it (transformer/check/target.ts: `OrderService.pay`, `orders.pay` for a method of
// `const orders = { … }`, `pay` for a function or a method of an object nothing names, `default`,
// `(anonymous class).pay`), and a module that defines some other lock by hand — defineLock() is
// public — is no proof that its tagged methods were woven. Only the exact site proves it.
//
// The text is read as tokens — comments, strings, template literals (with `${}` nested), regular
// expression literals — and the braces are followed, so that each tagged method is known by the
// class or object literal it stands in, and that by what names it. Where the text cannot be read
// that exactly (an odd form, text that does not tokenize, JSX), the site is undefined: the module is
// not shown woven. A site read here must equal the transformer's; that is tested on every fixture
// and on generated files (test/runtime/tagged-sites.test.ts).
import { MAY_NAME_TAG, TAG_NAMES } from './tag-text';

/** A tagged `/**` block's declaration: where it starts (after the block) and its site, undefined where it cannot be read exactly. */
export interface TaggedSite {
  readonly at: number;
  readonly site: string | undefined;
  /** The businessFlag of each tag in the block; undefined unless each tag shows exactly one, read exactly. */
  readonly businessFlags: readonly string[] | undefined;
}

/** The site of the declaration after each tagged `/**` block (one that is a comment, not text in a string), in order. */
export function taggedSites(text: string, jsx = false): TaggedSite[] {
  const read = jsx ? undefined : tokenize(text);
  if (!read) return unreadable(text);
  return (
    readSites(read.tokens, read.tagged) ??
    read.tagged.map((block) => ({ at: block.at, site: undefined, businessFlags: undefined }))
  );
}

/** Every block that may hold a tag, each without a site: text that does not tokenize shows nothing exactly. */
function unreadable(text: string): TaggedSite[] {
  const found: TaggedSite[] = [];
  for (let open = text.indexOf('/**'); open >= 0; open = text.indexOf('/**', open + 3)) {
    const close = text.indexOf('*/', open + 3);
    if (MAY_NAME_TAG.test(text.slice(open, close < 0 ? text.length : close)))
      found.push({ at: open, site: undefined, businessFlags: undefined });
  }
  return found.length > 0 ? found : [{ at: 0, site: undefined, businessFlags: undefined }];
}

/** The businessFlag attribute with its value bare or quoted: the contract's characters only, a whole attribute. */
const BUSINESS_FLAG = /(?<![\w$])businessFlag=("?)([A-Za-z0-9_.:-]+)\1(?=\s|\*\/|$)/g;

/** The businessFlag of each tag in a `/**` block; undefined unless each tag shows exactly one. */
function businessFlagsOf(block: string): string[] | undefined {
  const flags = [...block.matchAll(BUSINESS_FLAG)].map((match) => match[2]);
  const tags = block.match(TAG_NAMES)?.length ?? 0; // the tags' names, in any spelling; not their attributes
  return tags > 0 && flags.length === tags ? flags : undefined;
}

type Kind = 'name' | 'private' | 'string' | 'number' | 'template' | 'regex' | 'punct';

interface Token {
  readonly kind: Kind;
  readonly text: string;
  readonly start: number;
  /** A line break stands between this token and the one before. */
  readonly newline: boolean;
}

/** A tagged block, by the index of the token after it. */
interface TaggedBlock {
  readonly at: number;
  readonly token: number;
  readonly body: string;
}

const NAME =
  /(?:[\p{ID_Start}$_]|\\u(?:\{[\da-fA-F]+\}|[\da-fA-F]{4}))(?:[\p{ID_Continue}$\u200c\u200d]|\\u(?:\{[\da-fA-F]+\}|[\da-fA-F]{4}))*/uy;
const NUMBER = /\d\w*(?:\.\w*)?|\.\d\w*/y;
const EXPONENT_SIGN = /[+-]\d+/y;
/** The punctuators of more than one character, longest first (`>>`, `>>>` stay single `>`: a type's `<…>` may close so). */
const PUNCTUATORS =
  '>>>= ... === !== **= <<= >>= &&= ||= ??= => == != <= >= && || ?? ?. ++ -- += -= *= %= &= |= ^= ** <<'.split(' ');
const LINE_BREAK = /[\n\r\u2028\u2029]/;
/** After these words an expression starts: a `/` there opens a regular expression. */
const OPERATOR_WORDS = new Set(
  'return typeof instanceof in of new delete void throw case do else yield await'.split(' '),
);

/** The file's tokens and its tagged blocks; undefined where the text does not tokenize. */
function tokenize(text: string): { tokens: Token[]; tagged: TaggedBlock[] } | undefined {
  const tokens: Token[] = [];
  const tagged: TaggedBlock[] = [];
  // The braces opened inside each `${` still open: its `}` is the one met at 0.
  const templates: number[] = [];
  let at = text.startsWith('#!') ? text.search(LINE_BREAK) : 0;
  if (at < 0) at = text.length;
  let newline = false;
  const push = (kind: Kind, end: number): void => {
    tokens.push({ kind, text: text.slice(at, end), start: at, newline });
    newline = false;
    at = end;
  };
  /** The rest of a template from `from`: a `template` token to its end, or to a `${` that opens a frame. */
  const template = (from: number): boolean => {
    for (let i = from; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') i++;
      else if (c === '`') {
        push('template', i + 1);
        return true;
      } else if (c === '$' && text[i + 1] === '{') {
        push('template', i);
        push('punct', i + 2);
        templates.push(0);
        return true;
      }
    }
    return false;
  };
  while (at < text.length) {
    const c = text[at];
    if (LINE_BREAK.test(c)) {
      newline = true;
      at++;
    } else if (/\s/.test(c)) {
      at++;
    } else if (text.startsWith('//', at)) {
      const end = text.slice(at).search(LINE_BREAK);
      at = end < 0 ? text.length : at + end;
    } else if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      if (end < 0) return undefined;
      const body = text.slice(at, end + 2);
      if (body.startsWith('/**') && body !== '/**/' && MAY_NAME_TAG.test(body))
        tagged.push({ at, token: tokens.length, body });
      if (LINE_BREAK.test(body)) newline = true;
      at = end + 2;
    } else if (c === '"' || c === "'") {
      const end = stringEnd(text, at);
      if (end < 0) return undefined;
      push('string', end);
    } else if (c === '`') {
      if (!template(at + 1)) return undefined;
    } else if (c === '}' && templates.length > 0 && templates[templates.length - 1] === 0) {
      templates.pop();
      push('punct', at + 1);
      if (!template(at)) return undefined;
    } else if (c === '/' && regexMayStart(tokens[tokens.length - 1])) {
      const end = regexEnd(text, at);
      if (end < 0) return undefined;
      push('regex', end);
    } else if (c === '#' && readSticky(NAME, text, at + 1) !== undefined) {
      push('private', at + 1 + (readSticky(NAME, text, at + 1) as string).length);
    } else if (/\d/.test(c) || (c === '.' && /\d/.test(text[at + 1] ?? ''))) {
      let end = at + (readSticky(NUMBER, text, at) as string).length;
      if (/[eE]$/.test(text.slice(at, end)) && !/^0[xX]/.test(text.slice(at, end)))
        end += readSticky(EXPONENT_SIGN, text, end)?.length ?? 0;
      push('number', end);
    } else {
      const name = readSticky(NAME, text, at);
      if (name !== undefined) {
        push('name', at + name.length);
        continue;
      }
      const punctuator = PUNCTUATORS.find((p) => text.startsWith(p, at)) ?? c;
      if (templates.length > 0 && (punctuator === '{' || punctuator === '}'))
        templates[templates.length - 1] += punctuator === '{' ? 1 : -1;
      push('punct', at + punctuator.length);
    }
  }
  return templates.length > 0 ? undefined : { tokens, tagged };
}

function readSticky(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

/** Past a quoted string from its quote; -1 where a line ends first or the text does. */
function stringEnd(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i += text.startsWith('\r\n', i + 1) ? 2 : 1;
    else if (c === quote) return i + 1;
    else if (c === '\n' || c === '\r') return -1;
  }
  return -1;
}

/** Past a regular expression literal and its flags; -1 where a line ends first. */
function regexEnd(text: string, start: number): number {
  let inClass = false;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (LINE_BREAK.test(c)) return -1;
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return i + 1 + (readSticky(NAME, text, i + 1)?.length ?? 0);
  }
  return -1;
}

/**
 * Whether a `/` after `previous` opens a regular expression: where an expression may start. After
 * `)` and `]` it divides; after `}` (most often a block's end) it opens one.
 */
function regexMayStart(previous: Token | undefined): boolean {
  if (!previous) return true;
  if (previous.kind === 'name') return OPERATOR_WORDS.has(previous.text);
  if (previous.kind !== 'punct') return false;
  return previous.text !== ')' && previous.text !== ']' && previous.text !== '++' && previous.text !== '--';
}

/** An open `{`, `(`, `[` or `${`, and the tagged members of a class body or object literal, whose owner its end decides. */
interface Frame {
  readonly open: string;
  /** The token that opened it. */
  readonly token: number;
  /** The class whose body it is. */
  readonly head?: ClassHead;
  /** The frame it stands in: a class body, for a field's initializer. */
  readonly parent: Frame | undefined;
  readonly members: { readonly entry: number; readonly name: string | undefined }[];
}

/** A `class` keyword whose body has not opened yet: its name, and the `<…>` open in its heading. */
interface ClassHead {
  readonly token: number;
  readonly name: Token | undefined;
  readonly depth: number;
  angles: number;
}

const CLOSES: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** The site of each tagged block, following the braces; undefined when they do not pair up. */
function readSites(tokens: readonly Token[], tagged: readonly TaggedBlock[]): TaggedSite[] | undefined {
  const sites: { at: number; site: string | undefined; businessFlags: readonly string[] | undefined }[] = [];
  const stack: Frame[] = [];
  const heads: ClassHead[] = [];
  let next = 0;
  for (let i = 0; i <= tokens.length; i++) {
    for (; next < tagged.length && tagged[next].token === i; next++) {
      const declaration = readDeclaration(tokens, i);
      const frame = stack[stack.length - 1];
      const entry =
        sites.push({
          at: tokens[i]?.start ?? tagged[next].at,
          site: undefined,
          businessFlags: businessFlagsOf(tagged[next].body),
        }) - 1;
      if (declaration.isFunction) sites[entry].site = declaration.name;
      else if (frame?.open === '{') frame.members.push({ entry, name: declaration.name });
    }
    const token = tokens[i];
    if (!token) break;
    const head = heads[heads.length - 1];
    const atHead = head !== undefined && head.depth === stack.length;
    if (token.kind === 'name' && token.text === 'class' && isClassKeyword(tokens, i)) {
      const named = tokens[i + 1].kind === 'name' && !/^(?:extends|implements)$/.test(tokens[i + 1].text);
      heads.push({ token: i, name: named ? tokens[i + 1] : undefined, depth: stack.length, angles: 0 });
    } else if (token.kind !== 'punct') {
      // a name or a literal: nothing opens or closes
    } else if (atHead && (token.text === '<' || token.text === '>')) {
      head.angles = Math.max(0, head.angles + (token.text === '<' ? 1 : -1));
    } else if (atHead && token.text === ';') {
      return undefined; // a `class` that opened no body: not read as the parser does
    } else if (token.text === '{' || token.text === '(' || token.text === '[' || token.text === '${') {
      const body = token.text === '{' && atHead && head.angles === 0;
      if (body) heads.pop();
      stack.push({
        open: token.text,
        token: i,
        head: body ? head : undefined,
        parent: stack[stack.length - 1],
        members: [],
      });
    } else if (token.text === ')' || token.text === ']' || token.text === '}') {
      const frame = stack.pop();
      if (!frame || (frame.open !== CLOSES[token.text] && !(token.text === '}' && frame.open === '${')))
        return undefined;
      if (heads.length > 0 && heads[heads.length - 1].depth > stack.length) return undefined;
      if (frame.members.length === 0) continue;
      const owner = frame.head ? classOwner(tokens, frame, i) : objectOwner(tokens, frame, i);
      for (const { entry, name } of frame.members) {
        // '' is an object literal's missing owner (classOwner never gives it): the site is the name alone.
        sites[entry].site =
          owner === undefined || name === undefined ? undefined : owner === '' ? name : `${owner}.${name}`;
      }
    }
  }
  return stack.length === 0 && heads.length === 0 && next === tagged.length ? sites : undefined;
}

/** `class` as the keyword, not a property or method named so (`x.class`, `{ class: 1 }`, `class() {}`). */
function isClassKeyword(tokens: readonly Token[], i: number): boolean {
  const before = tokens[i - 1];
  const after = tokens[i + 1];
  if (before?.kind === 'punct' && (before.text === '.' || before.text === '?.')) return false;
  if (!after) return false;
  return after.kind === 'name' || (after.kind === 'punct' && (after.text === '{' || after.text === '<'));
}

/** The name a class's members are written under: its own, its variable's, `(anonymous class)`; undefined where unsure. */
function classOwner(tokens: readonly Token[], frame: Frame, close: number): string | undefined {
  const head = frame.head as ClassHead;
  if (head.name) return plainName(head.name);
  let before = head.token - 1;
  while (tokens[before]?.kind === 'name' && tokens[before].text === 'abstract') before--;
  const previous = tokens[before];
  if (!previous) return undefined;
  if (previous.kind === 'name' && previous.text === 'default')
    return tokens[before - 1]?.text === 'export' ? ANONYMOUS_CLASS : undefined;
  if (previous.kind === 'punct' && previous.text === '=') {
    const holder = heldBy(tokens, before, frame.parent);
    if (holder === undefined) return undefined;
    if (holder === '' || holder.kind !== 'variable') return ANONYMOUS_CLASS;
    const direct = standsAlone(tokens, close);
    return direct === undefined ? undefined : direct ? holder.name : ANONYMOUS_CLASS;
  }
  if (previous.kind === 'name' ? OPERATOR_WORDS.has(previous.text) : EXPRESSION_BEFORE.has(previous.text))
    return ANONYMOUS_CLASS;
  return undefined;
}

const ANONYMOUS_CLASS = '(anonymous class)';
/** Tokens after which a class or object stands in an expression whose parent is no variable, property or field. */
const EXPRESSION_BEFORE = new Set(['(', ',', '=>', ':', '?', '[', '{', '...', '||', '&&', '??', '!', '${']);

/** The name an object literal's methods are written under (`orders`), '' for none; undefined where unsure. */
function objectOwner(tokens: readonly Token[], frame: Frame, close: number): string | undefined {
  const previous = tokens[frame.token - 1];
  // After a name that starts no expression (`Foo {`) or a `>`, the braces may be a class body not read as one.
  if (previous?.kind === 'name' && !OPERATOR_WORDS.has(previous.text) && previous.text !== 'default') return undefined;
  if (previous?.kind === 'punct' && previous.text === '>') return undefined;
  if (previous?.kind !== 'punct' || (previous.text !== '=' && previous.text !== ':')) return '';
  let name: string | undefined;
  if (previous.text === '=') {
    const holder = heldBy(tokens, frame.token - 1, frame.parent);
    if (holder === undefined || holder === '') return holder;
    name = holder.name;
  } else {
    // `key: {` in an object literal: a property assignment (else: a conditional's last branch).
    if (frame.parent?.open !== '{' || frame.parent.head) return '';
    const key = propertyKey(tokens, frame.token - 2);
    if (!key) return '';
    const start = tokens[key.start - 1];
    if (start?.kind !== 'punct' || (start.text !== '{' && start.text !== ',')) return '';
    name = key.name;
  }
  if (name === undefined) return undefined;
  const direct = standsAlone(tokens, close);
  return direct === undefined ? undefined : direct ? name : '';
}

/** A property's key ending at `end`: a name, a quoted string, a number or `[…]`, with where it starts. */
function propertyKey(tokens: readonly Token[], end: number): { start: number; name: string | undefined } | undefined {
  const token = tokens[end];
  if (!token) return undefined;
  if (token.kind === 'name' || token.kind === 'string' || token.kind === 'number' || token.kind === 'private')
    return { start: end, name: plainName(token) };
  if (token.kind !== 'punct' || token.text !== ']') return undefined;
  let depth = 0;
  for (let i = end; i >= 0 && end - i < MAX_WALK; i--) {
    const text = tokens[i].kind === 'punct' ? tokens[i].text : '';
    if (text === ']') depth++;
    else if (text === '[' && --depth === 0) return { start: i, name: '[computed]' };
  }
  return undefined;
}

/** Bound on the tokens walked back over a type or a computed key. */
const MAX_WALK = 256;

/**
 * What the `=` at `equals` assigns to: a variable (`const orders =`, `let orders: T =`) or a
 * class field (`orders =`, `private orders: T =` in a class body `container`), with its name; ''
 * for anything else (an assignment, a parameter's default); undefined where unsure.
 */
function heldBy(
  tokens: readonly Token[],
  equals: number,
  container: Frame | undefined,
): { kind: 'variable' | 'field'; name: string | undefined } | '' | undefined {
  const inClass = container?.head !== undefined;
  const held = (keyEnd: number): { kind: 'variable' | 'field'; name: string | undefined } | '' | undefined => {
    const end = tokens[keyEnd];
    // A binding pattern (`const { a } =`): its name is no key the transformer reads.
    if (!inClass && end?.kind === 'punct' && (end.text === '}' || end.text === ']')) return undefined;
    const key = propertyKey(tokens, keyEnd);
    if (!key) return '';
    const before = tokens[key.start - 1];
    if (inClass) {
      // A field starts a member: after `{`, `;`, `}`, a decorator's `)`, a modifier, or (not before a
      // `[`, which would index it) the last token of the member before it.
      const starts =
        !before ||
        (before.kind === 'punct'
          ? /^[{;})]$/.test(before.text)
          : tokens[key.start].text !== '[' || (before.kind === 'name' && MODIFIERS.has(before.text)));
      return starts ? { kind: 'field', name: key.name } : '';
    }
    if (tokens[key.start].kind !== 'name') return '';
    if (before?.kind === 'name' && /^(?:const|let|var|using)$/.test(before.text))
      return { kind: 'variable', name: key.name };
    return before?.kind === 'punct' && before.text === ',' ? undefined : '';
  };
  if (!tokens[equals - 1]) return undefined;
  const plain = held(equals - 1);
  if (plain !== '') return plain;
  // A type annotation before the `=`: walked back to its `:` (types hold no `=`, `;` or `,` outside brackets).
  let depth = 0;
  for (let i = equals - 1; i >= 0 && equals - i < MAX_WALK; i--) {
    const token = tokens[i];
    if (token.kind === 'name' && /^(?:const|let|var|using|class|function|return)$/.test(token.text)) break;
    if (token.kind !== 'punct') continue;
    if (token.text === ')' || token.text === ']' || token.text === '}' || token.text === '>') depth++;
    else if (token.text === '(' || token.text === '[' || token.text === '{' || token.text === '<') {
      if (--depth < 0) break;
    } else if (depth === 0 && token.text === ':') {
      return held(/^[?!]$/.test(tokens[i - 1]?.text ?? '') ? i - 2 : i - 1);
    } else if (depth === 0 && /^(?:;|,|=|\.\.\.|\?)$/.test(token.text)) {
      break;
    }
  }
  return '';
}

/**
 * Whether the expression that ends at `close` is the whole initializer (nothing after it but the
 * end of its declaration): true, false (it goes on: `as const`, `.call()`), undefined where unsure.
 */
function standsAlone(tokens: readonly Token[], close: number): boolean | undefined {
  const after = tokens[close + 1];
  if (!after) return true;
  if (after.kind === 'punct' && /^[;,}]$/.test(after.text)) return true;
  if (!after.newline)
    return after.kind === 'punct' || after.text === 'as' || after.text === 'satisfies' ? false : undefined;
  if (after.kind === 'name') return /^(?:as|satisfies|in|instanceof)$/.test(after.text) ? undefined : true;
  if (after.kind === 'private' || after.kind === 'string' || after.kind === 'number') return true;
  return after.kind === 'punct' && /^(?:@|\{|!|\+\+|--)$/.test(after.text);
}

/** A name as the transformer writes it; undefined for one whose text is not its value (an escape). */
function plainName(token: Token): string | undefined {
  if (token.text.includes('\\')) return undefined;
  if (token.kind === 'string') return token.text.slice(1, -1);
  if (token.kind === 'number') return /^(?:0|[1-9]\d{0,14})$/.test(token.text) ? token.text : undefined;
  return token.kind === 'name' || token.kind === 'private' ? token.text : undefined;
}

/** Words that may stand before a method's or function's name (`get`, `set`: a tag there is an error, named by the weave). */
const MODIFIERS = new Set(
  'export default declare public private protected static override readonly abstract accessor async get set'.split(' '),
);

/** Bound on the words and decorators read before a name: a declaration has few. */
const MAX_STEPS = 64;

/**
 * The declaration from token `start` on: its name as the transformer writes it (undefined where it
 * cannot be read), and whether it is a function declaration (its site is its name, or `default`).
 */
function readDeclaration(tokens: readonly Token[], start: number): { name: string | undefined; isFunction: boolean } {
  const unread = { name: undefined, isFunction: false };
  let at = start;
  let exportDefault = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    const token = tokens[at];
    if (!token) return unread;
    const after = tokens[at + 1];
    if (token.kind === 'punct' && token.text === '@') {
      at = pastDecorator(tokens, at + 1);
      if (at < 0) return unread;
      continue;
    }
    if (token.kind === 'punct' && token.text === '*') {
      at++; // a generator's star (an error, named by the weave)
      continue;
    }
    if (token.kind === 'punct' && token.text === '[') {
      const key = propertyKey(tokens, matching(tokens, at));
      return { name: key?.name, isFunction: false };
    }
    if (token.kind !== 'name') return { name: plainName(token), isFunction: false };
    // A modifier's word (or `function`) followed by a parameter list, a type parameter list or `?`/`!` is itself the name.
    const isName = after?.kind === 'punct' && /^(?:\(|<|\?|!)$/.test(after.text);
    if (token.text === 'function' && (exportDefault || !isName)) {
      const name = tokens[at + 1]?.kind === 'punct' && tokens[at + 1].text === '*' ? tokens[at + 2] : after;
      if (name?.kind === 'name') return { name: plainName(name), isFunction: true };
      return { name: exportDefault ? 'default' : undefined, isFunction: true };
    }
    if (MODIFIERS.has(token.text) && !isName) {
      if (token.text === 'default' && tokens[at - 1]?.text === 'export') exportDefault = true;
      at++;
      continue;
    }
    return { name: plainName(token), isFunction: false };
  }
  return unread;
}

/** The index of the `]` that closes the `[` at `open`; -1 where none does. */
function matching(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const text = tokens[i].kind === 'punct' ? tokens[i].text : '';
    if (text === '[') depth++;
    else if (text === ']' && --depth === 0) return i;
  }
  return -1;
}

/** Past `Name.path<…>(arguments)` after an `@`; -1 where its brackets do not close. */
function pastDecorator(tokens: readonly Token[], start: number): number {
  let at = start;
  while (tokens[at]?.kind === 'name' && tokens[at + 1]?.text === '.') at += 2;
  if (tokens[at]?.kind !== 'name') return -1;
  at++;
  if (tokens[at]?.text === '<') at = pastBrackets(tokens, at, '<', '>');
  if (at >= 0 && tokens[at]?.text === '(') at = pastBrackets(tokens, at, '(', ')');
  return at;
}

/** Past the `close` that pairs with the `open` at `start` (other brackets inside balanced on their own); -1 where none does. */
function pastBrackets(tokens: readonly Token[], start: number, open: string, close: string): number {
  let depth = 0;
  for (let at = start; at < tokens.length; at++) {
    const text = tokens[at].kind === 'punct' ? tokens[at].text : '';
    if (text === open) depth++;
    else if (text === close && --depth === 0) return at + 1;
  }
  return -1;
}
