// A package.json script read as a POSIX shell reads it, as far as lockweave needs: where one
// command ends and the next begins, where one word ends and the next begins, and what a word says
// once its quotes and escapes are gone. Nothing is expanded ($VAR, globs, ~): the text is read,
// never run. The audit (which commands a script runs) and the credential hiding (what each word of
// them is) both read a script here, so that they never disagree on where a quoted `;` belongs.

export type ShellToken =
  | { readonly kind: 'space' | 'operator'; readonly text: string }
  /** `opensHeredoc`: `<<END`, or the `<<` before END. */
  | { readonly kind: 'word'; readonly text: string; readonly opensHeredoc: boolean }
  /** The lines a `<<END` feeds its command, from the new line before them to the END line (absent when unclosed). */
  | { readonly kind: 'heredoc'; readonly text: string; readonly end: string | undefined };

/**
 * One word: quoted parts (an unclosed quote runs to the end), ANSI-C `$'…'`, escapes (a backslash
 * before a new line joins the lines), redirections to a descriptor (`2>&1`, `&>file`), plain characters.
 */
const WORD =
  /(?:\$'(?:[^'\\]|\\[\s\S])*'?|'[^']*'?|\$?"(?:[^"\\]|\\[\s\S])*"?|\\[\s\S]|[<>]&|&>|\$(?!\()|[^\s'"\\;&|()`$])+/y;
/** What ends a command or opens one inside it: `$(`, a subshell's parentheses, a backquote. */
const OPERATOR = /\$\(|&&|\|\||;;|[;&|()`\n]/y;
/** Blanks, and a backslash before a new line (the line goes on). */
const SPACE = /(?:[^\S\n]|\\\n)+/y;
/** `<<END`, `<<-END`, `<< 'END'` (not the here-string `<<<`): the lines after this one, to END, are input. */
const HEREDOC = /(?<!<)<<(-?)(?!<)([\s\S]*)$/;

/** The tokens of `text`, which joined again give `text` back. */
export function shellTokens(text: string): ShellToken[] {
  const tokens: ShellToken[] = [];
  /** The heredocs opened on the current line, read when it ends. */
  const opened: Heredoc[] = [];
  /** After a bare `<<` (true: `<<-`), the next word names the END line. */
  let endNamedNext: boolean | undefined;
  for (let at = 0; at < text.length; ) {
    const token = nextToken(text, at, opened);
    at += token.text.length;
    if (token.kind !== 'word') {
      tokens.push(token);
      continue;
    }
    const heredoc = HEREDOC.exec(token.text);
    if (endNamedNext !== undefined) opened.push({ end: unquote(token.text), tabs: endNamedNext });
    endNamedNext = heredoc && heredoc[2] === '' ? heredoc[1] === '-' : undefined;
    if (heredoc && heredoc[2] !== '') opened.push({ end: unquote(heredoc[2]), tabs: heredoc[1] === '-' });
    tokens.push({ kind: 'word', text: token.text, opensHeredoc: heredoc !== null });
  }
  return tokens;
}

function nextToken(text: string, at: number, opened: Heredoc[]): ShellToken {
  if (text[at] === '\n' && opened.length > 0) return readHeredocs(text, at, opened.splice(0));
  const space = take(SPACE, text, at);
  if (space) return { kind: 'space', text: space };
  const operator = take(OPERATOR, text, at);
  if (operator) return { kind: 'operator', text: operator };
  // A lone backslash at the end, which no word takes, is a word of its own.
  return { kind: 'word', text: take(WORD, text, at) ?? text[at], opensHeredoc: false };
}

function take(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0] || undefined;
}

interface Heredoc {
  readonly end: string;
  /** `<<-`: the END line may start with tabs. */
  readonly tabs: boolean;
}

/** The lines after the new line at `at`: each heredoc's, one after the other, to its END line. */
function readHeredocs(text: string, at: number, heredocs: readonly Heredoc[]): ShellToken {
  let from = at + 1;
  let end: string | undefined;
  for (const heredoc of heredocs) {
    end = undefined;
    while (end === undefined && from <= text.length) {
      const newLine = text.indexOf('\n', from);
      const stop = newLine < 0 ? text.length : newLine;
      const line = text.slice(from, stop);
      if ((heredoc.tabs ? line.replace(/^\t+/, '') : line) === heredoc.end) end = line;
      from = stop + 1;
    }
    if (end === undefined) return { kind: 'heredoc', text: text.slice(at), end };
  }
  return { kind: 'heredoc', text: text.slice(at, from - 1), end };
}

/** One part of a word: ANSI-C quoted, single quoted, double quoted, escaped, or plain. */
const PART = /\$'((?:[^'\\]|\\[\s\S])*)'?|'([^']*)'?|\$?"((?:[^"\\]|\\[\s\S])*)"?|\\([\s\S]?)|([^'"\\$]+|\$)/gy;

/** What a word says to the program it is given to: `"--pass"'word'` → `--password`, `$'\x2da'` → `-a`. */
export function unquote(word: string): string {
  let value = '';
  for (const [, ansi, single, double, escaped, plain] of word.matchAll(PART)) {
    if (ansi !== undefined) value += ansiC(ansi);
    else if (single !== undefined) value += single;
    // In double quotes a backslash escapes only $ ` " \ and a new line (which it removes).
    else if (double !== undefined)
      value += double.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === '\n' ? '' : char));
    // Outside quotes it escapes any character, and removes a new line.
    else if (escaped !== undefined) value += escaped === '\n' ? '' : escaped;
    else value += plain;
  }
  return value;
}

const ANSI_C = /\\(?:([xuU])([0-9a-fA-F]+)|([0-7]{1,3})|c([\s\S])|([\s\S]))/g;
const ANSI_C_LIMIT: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };
const ANSI_C_SHORT: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** The text of `$'…'` as bash reads it: `\n`, `\x41`, `\u2028`, `\101`, `\cA`, `\'`. */
function ansiC(text: string): string {
  return text.replace(ANSI_C, (_, hexKind?: string, hex?: string, octal?: string, control?: string, other?: string) => {
    if (hexKind && hex) {
      // `\x414` is `A4`: each kind reads at most so many digits.
      const digits = hex.slice(0, ANSI_C_LIMIT[hexKind]);
      return String.fromCodePoint(Math.min(Number.parseInt(digits, 16), 0x10ffff)) + hex.slice(digits.length);
    }
    if (octal) return String.fromCharCode(Number.parseInt(octal, 8));
    if (control) return String.fromCharCode(control.charCodeAt(0) & 0x1f);
    return ANSI_C_SHORT[other ?? ''] ?? other ?? '';
  });
}

/**
 * `a && b || c; d | e & f` → its commands, each as written. A `$(…)` or backquoted command stays
 * inside the command whose word it is (`tsx --conditions=$(cat c) src/a.ts`); a subshell's
 * parentheses end commands like `;` does; a quoted `;` or `&&` ends nothing; a heredoc's lines
 * stay with the command that opened them (`cat <<END | tsx a.ts`: with cat), which alone says they
 * are input, not commands.
 */
export function splitCommands(script: string): string[] {
  const commands: string[] = [];
  let command = '';
  /** How deep inside `$(…)` and backquotes: their operators belong to the command around them. */
  let depth = 0;
  let backquoted = false;
  /** The command that opened the heredocs waiting for the next line (commands.length: this one). */
  let opener = 0;
  for (const token of shellTokens(script)) {
    if (token.kind === 'word' && token.opensHeredoc) opener = commands.length;
    if (token.kind === 'heredoc' && opener < commands.length) {
      commands[opener] += token.text;
      continue;
    }
    if (token.kind === 'operator') {
      if (token.text === '`') backquoted = !backquoted;
      else if (token.text === '$(' || (depth > 0 && token.text === '(')) depth++;
      else if (depth > 0 && token.text === ')') depth--;
      else if (depth === 0 && !backquoted) {
        commands.push(command);
        command = '';
        continue;
      }
    }
    command += token.text;
  }
  commands.push(command);
  return commands.map((part) => part.trim()).filter(Boolean);
}

/**
 * The commands a command hands on in quoted words, which a wrapper runs as commands of their own
 * (`sh -c "tsc"`, `concurrently "tsc -w" "node dist/a.js"`, `nodemon --exec 'ts-node a.ts'`): each
 * quoted word with a blank in it, read as a script, and the words of those in turn (`depth` levels).
 * A quoted word that is no command (`--onSuccess "echo done"`) gives commands no rule matches.
 */
export function quotedCommands(command: string, depth = 3): string[] {
  if (depth === 0) return [];
  return shellTokens(command).flatMap((token) => {
    if (token.kind !== 'word' || !/['"]/.test(token.text)) return [];
    const said = unquote(token.text);
    if (!/\s/.test(said.trim())) return [];
    return splitCommands(said).flatMap((inner) => [inner, ...quotedCommands(inner, depth - 1)]);
  });
}
