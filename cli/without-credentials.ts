// Text the CLI prints but did not write — an argument it was given, a package.json script it
// audited — with whatever could be a credential hidden. The output goes to terminals shared on a
// screen and to CI logs kept and read more widely than the repository or the shell history.
//
// Hidden, word by word as a shell splits a command (cli/shell-words.ts), each word judged by what it
// says once its quotes and escapes are gone (`"--pass"'word'` is `--password`) and by the words
// before it in its command:
// - the user and password of a URL with a scheme, wherever it stands (scheme://user:pass@host →
//   scheme://…@host);
// - the value of every NAME=value word (NAME=…, whatever the name: REDIS_URL holds a URL, PGPASSWORD a
//   password, and no list of names is complete), and of any key=value whose key holds a secret word
//   (`//registry/:_authToken=…`, `?token=…`);
// - the value of an option, or of a quoted key, whose name holds a secret word anywhere in it
//   (--password x, --dbPassword=x, --redisAuthToken x, --requirepass x, "apiKey": "x");
// - the password of `user:password` after -u/--user (curl), a header whose name holds a secret word
//   (`-H 'Authorization: …'`, `X-Api-Key: …`);
// - after a tool whose short option takes a password (redis-cli's -a, mysql's, sshpass's and
//   `docker login`'s -p): its value, attached (`-pSECRET`) or not; everything after AUTH (in any
//   case after redis-cli; in capitals anywhere: `printf 'AUTH x' | redis-cli`);
// - the lines a heredoc feeds a command;
// - code handed to an interpreter, whole: the word after `-e`, `--eval`, `-p`, `--print`, `-pe`
//   (node, bun, tsx, ts-node; `--eval=…` and `-e…` attached alike), after deno's `eval`, python's
//   `-c`, ruby's and perl's `-e` (`-ne` too), php's `-r`, and what a here-string feeds one
//   (`node <<< '…'`); the code of a `data:` URL (`--import 'data:text/javascript,…'`). Code is any
//   text: a password in it may sit in an object (`{ password: 'x' }`), a template literal, a
//   variable, and no pattern finds them all, so none is looked for; the words after it are the
//   program's, as after a script file;
// - the arguments a command passes to the program it runs, after its script file
//   (`tsx src/pay.ts -a x y` → `tsx src/pay.ts -a … …`): they are the program's, and only it knows
//   which of them is a password.
// A word is judged as a shell reads it and then in its compatibility form, typographic quotes gone
// (`“--password”`, a full-width `－－password＝x`): a lookalike hides nothing.
// Hiding too much is the safe way to be wrong: a URL's credentials run to the last @ of its word,
// since a password with a raw @, / or # splits no way a parser can guess (runtime/base/redis-address.ts
// prints nothing of such a URL for the same reason), and a name that merely contains a secret word
// (--passWithNoTests, --keyPrefix) has the word after it hidden too.
import { printable } from '../runtime/base/printable';
import { parseRedisUrl, printAddress } from '../runtime/base/redis-address';
import { withoutUrlCredentials } from '../runtime/base/url-credentials';
import { isSecretName, OPTION_VALUES, toolOf, type Tool, type ValueKind } from './credential-words';
import { shellTokens, unquote } from './shell-words';

/** How the word an option takes is hidden, in the state of the command it is a word of. */
type ValueHider = (value: string, state: CommandState) => string;

const WHOLE: ValueHider = () => '…';

/** Code, hidden whole; the words after it are the program's arguments, as after a script file. */
const CODE: ValueHider = (_value, state) => {
  state.afterScript = true;
  return '…';
};

/**
 * A value read as a word of its own: `-H 'Authorization: Bearer x'`, `-c http.extraHeader=…`,
 * `--env=PGPASSWORD=x`. In a copy of the command's state: what the value says (`--config=jest.config.ts`
 * names a file, not the script) does not change how the words after it are read.
 */
const AS_WORD: ValueHider = (value, state) => hideValue(value, value, { ...state, codeNext: false });

/**
 * `user:password` (curl's -u; docker's -u uid:gid alike) → `user:…`; a lone user name is kept, and
 * a URL (redis-cli's -u) shown as any URL is.
 */
const USER_PASSWORD: ValueHider = (value, state) => {
  const colon = value.indexOf(':');
  return colon < 0 || value.includes('://') ? AS_WORD(value, state) : `${value.slice(0, colon)}:…`;
};

const HIDERS: Readonly<Record<ValueKind, ValueHider>> = {
  secret: WHOLE,
  'user:password': USER_PASSWORD,
  header: AS_WORD,
};

/** A file a command runs (its script, its entry point); the words after it are the program's own. */
const SCRIPT_FILE = /\.[cm]?[jt]sx?$/;

/** `"apiKey": "x"`, `'password':x` (JSON or a JavaScript object in a script); not `"key": --password`, an option. */
const QUOTED_KEY = /(["'])([\w.:-]+)\1(\s*:\s*)(?!--)(?:'[^']*'?|"(?:[^"\\]|\\.)*"?|\\.|[^\s'"\\])+/g;
/**
 * `password: 'x'`, `pass: \`x\``: a JavaScript object's key and a string, outside the code options
 * that hide code whole (an interpreter lockweave does not know, `echo '…' | node`).
 */
const BARE_KEY = /(?<![\w$.'"-])([A-Za-z_$][\w$]*)(\s*:\s*)(?:'[^']*'?|"(?:[^"\\]|\\.)*"?|`[^`]*`?)/g;
/** `data:text/javascript,…`: a URL whose content is the code or text it carries. */
const DATA_URL = /^(data:[^,]*,)[\s\S]/i;
/** `<<<word`: a here-string, the word the command reads as its input. */
const HERE_STRING = /^<<<([\s\S]*)$/;
/** Perl's `-ne`, python's `-Bc`: short options run together. */
const SHORT_CLUSTER = /^-([A-Za-z]+)$/;

/** `--name`, `-name`, `--name=value`. */
const OPTION = /^(-{1,2}[A-Za-z][\w.:-]*)(?:=([\s\S]*))?$/;
/** `-aSECRET`, `-uuser:pw`: a short option with its value attached. */
const SHORT_ATTACHED = /^(-[A-Za-z])([\s\S]+)$/;
/** `--verbose` after `--password`: another option, not the password. */
const LONG_OPTION = /^\s*--[A-Za-z]/;
/** `name=value`: an assignment (`REDIS_URL=…`), a setting (`http.extraHeader=…`), a query (`?token=…`). */
const KEY_VALUE = /^([^=\s]+)=([\s\S]*)$/;
/** A shell variable's name (and PowerShell's `$env:NAME`): every value assigned to one is hidden. */
const VARIABLE = /^(?:\$env:)?[A-Za-z_][A-Za-z0-9_]*$/;
/** `Authorization: Bearer x`, `X-Api-Key:x`: a header, its value hidden when its name is a secret's. */
const HEADER = /^([A-Za-z][\w-]*\s*:\s*)\S/;

/** `text` (a script, a command, a word) with URL credentials, assigned values and secret values hidden. */
export function withoutCredentials(text: string): string {
  const keysHidden = text
    .replace(QUOTED_KEY, (whole, quote: string, name: string, colon: string) =>
      isSecretName(name) ? `${quote}${name}${quote}${colon}…` : whole,
    )
    .replace(BARE_KEY, (whole, name: string, colon: string) => (isSecretName(name) ? `${name}${colon}…` : whole));
  return hideInCommands(withoutUrlCredentials(keysHidden));
}

/**
 * Text from the user's files or command line as the CLI prints it: credentials hidden, then every
 * character that could forge or disguise a line (a new line, an ANSI escape, a bidi override) escaped.
 */
export function printableWithoutCredentials(text: string): string {
  return printable(withoutCredentials(text));
}

/**
 * One command-line argument as a message may show it: a redis:// URL by its host:port only (as
 * `--redis` is printed), any other URL not at all, other text with `printableWithoutCredentials`.
 */
export function printArgument(arg: string): string {
  if (!arg.includes('://')) return printableWithoutCredentials(arg);
  try {
    const { host, port } = parseRedisUrl(arg, 'an argument');
    return `a Redis URL (${printAddress({ host, port })})`;
  } catch {
    return 'a URL (not shown: it may hold credentials)';
  }
}

/** What the words before this one in the same command said about it. */
interface CommandState {
  /** The word before took this one as its value: how it is hidden. */
  valueHider: ValueHider | undefined;
  /** The tool this command runs, when its options are known. */
  tool: Tool | undefined;
  /** AUTH came: every word after it is a credential. */
  afterAuth: boolean;
  /** A script file, or code, came: the words after it are the program's arguments. */
  afterScript: boolean;
  /** deno's `eval` came: the next word that is no option is code. */
  codeNext: boolean;
}

const newCommand = (): CommandState => ({
  valueHider: undefined,
  tool: undefined,
  afterAuth: false,
  afterScript: false,
  codeNext: false,
});

/** Each word of each command in `text` hidden or kept by what it is and what came before it. */
function hideInCommands(text: string, start = newCommand()): string {
  const nesting: Nesting = { outer: [], backquoted: false };
  let state = start;
  let shown = '';
  for (const token of shellTokens(text)) {
    if (token.kind === 'word') shown += hideWord(token.text, state);
    // What a heredoc feeds its command may be anything, AUTH and its password included.
    else if (token.kind === 'heredoc') shown += token.end === undefined ? '\n…' : `\n…\n${token.end}`;
    else if (token.kind === 'space') shown += token.text;
    else {
      state = stateAfter(token.text, state, nesting);
      shown += token.text;
    }
  }
  return shown;
}

/** The commands a `$(`, `(` or backquote interrupted, to go on with after it. */
interface Nesting {
  readonly outer: CommandState[];
  backquoted: boolean;
}

/** After an operator: a new command, inside this one after `$(`; after `)`, the command it interrupted. */
function stateAfter(operator: string, state: CommandState, nesting: Nesting): CommandState {
  const backquote = operator === '`';
  const opens = operator === '$(' || operator === '(' || (backquote && !nesting.backquoted);
  const closes = operator === ')' || (backquote && nesting.backquoted);
  if (backquote) nesting.backquoted = !nesting.backquoted;
  if (opens) nesting.outer.push(state);
  return (closes && nesting.outer.pop()) || newCommand();
}

/**
 * Quotation marks a shell takes as letters (`“--password” x`): gone from a word as it is judged, as
 * its shell quotes are, since whoever typed them meant quotes.
 */
const TYPOGRAPHIC_QUOTES = /[\u2018\u2019\u201A\u201B\u201C\u201D\u201E\u201F\u00AB\u00BB\u2039\u203A\u300C-\u300F]/g;

/** What a word says as it is judged: NFKC, typographic quotes gone; `…`, hidden already, kept (NFKC would make it `...`). */
function judged(word: string): string {
  return word
    .split('…')
    .map((part) => part.normalize('NFKC').replace(TYPOGRAPHIC_QUOTES, ''))
    .join('…');
}

/**
 * A word as printed: as written when nothing in it is hidden, else what it says with that hidden.
 * Judged in its compatibility form (NFKC: a full-width `－－ｐａｓｓ＝x` is `--pass=x`), so a
 * lookalike character hides no option.
 */
function hideWord(raw: string, state: CommandState): string {
  const value = judged(unquote(raw));
  const shown = hideValue(value, raw, state);
  if (shown === value) return raw;
  // Quoted again where it needs quotes to read as one word (`sh -c 'PGPASSWORD=… tsx …'`), as it
  // was if its quote is not inside.
  if (!/[\s'"\\;&|()`<>]/.test(shown)) return shown;
  const written = /["']/.exec(raw)?.[0] ?? "'";
  const quote = !shown.includes(written) ? written : written === '"' ? "'" : '"';
  return `${quote}${shown}${quote}`;
}

/**
 * `word` (what a word says, `raw` as written) with what is a credential in it hidden, judged by
 * the words before it in its command (`state`, which it updates for the words after it).
 */
function hideValue(word: string, raw: string, state: CommandState): string {
  const value = withoutUrlCredentials(word);
  if (state.afterAuth) return '…';
  const valueHider = state.valueHider;
  state.valueHider = undefined;
  // `--password --verbose`: the next long option is not the password.
  if (valueHider && !LONG_OPTION.test(value)) return valueHider(value, state);
  const code = hideCode(value, state);
  if (code !== undefined) return code;
  const attached = hideAttached(value, state);
  if (attached !== undefined) return attached;
  const option = OPTION.exec(value);
  if (option) return hideOption(option[1], option[2], state);
  // The program's arguments, quoted or not: only the names of its options are shown.
  if (state.afterScript && !SCRIPT_FILE.test(value)) return '…';
  const assignment = hideAssignment(value, raw, state);
  if (assignment !== undefined) return assignment;
  const header = HEADER.exec(value);
  if (header && isSecretName(header[1])) return `${header[1]}…`;
  // `sh -c 'PGPASSWORD=x psql …'`, `"$(redis-cli -a x)"`, `"--password x"`: a word holding a
  // command, read as one, in this command's state, which it passes on: after `"--password "`, the
  // next word is the password.
  if (/\s/.test(value)) return hideInCommands(value, state);
  noteCommandWord(value, state);
  return value;
}

/**
 * Code, or what says where code comes: an interpreter's code option (`-e`, `--eval=…`, `-e…`,
 * `-ne`), the word after deno's `eval`, a here-string fed to an interpreter, a `data:` URL.
 * Undefined when `value` is none of them.
 */
function hideCode(value: string, state: CommandState): string | undefined {
  const tool = state.tool;
  const codeOptions = tool?.codeOptions ?? [];
  if (state.codeNext && !value.startsWith('-')) {
    state.codeNext = false;
    return CODE(value, state);
  }
  const data = DATA_URL.exec(value);
  if (data) return `${data[1]}…`;
  const hereString = HERE_STRING.exec(value);
  if (hereString && (tool?.codeOptions || tool?.codeCommand)) {
    if (hereString[1] !== '') return `<<<${CODE(hereString[1], state)}`;
    state.valueHider = CODE;
    return '<<<';
  }
  const option = OPTION.exec(value);
  // `--eval` takes code whatever the tool (`$NODE --eval '…'`).
  if (option && (codeOptions.includes(option[1]) || option[1] === '--eval')) {
    if (option[2] !== undefined) return `${option[1]}=${CODE(option[2], state)}`;
    state.valueHider = CODE;
    return option[1];
  }
  if (codeOptions.length === 0) return undefined;
  // `-ne`, `-Bc`: the first code option of the run takes the rest, or, last, the next word.
  const letters = SHORT_CLUSTER.exec(value)?.[1] ?? '';
  const at = [...letters].findIndex((letter) => codeOptions.includes(`-${letter}`));
  if (at >= 0 && at === letters.length - 1) {
    state.valueHider = CODE;
    return value;
  }
  const attached = SHORT_ATTACHED.exec(value);
  if (attached && codeOptions.includes(attached[1])) return `${attached[1]}${CODE(attached[2], state)}`;
  if (at >= 0) return `-${letters.slice(0, at + 1)}${CODE(letters.slice(at + 1), state)}`;
  return undefined;
}

/** How the value of option `name` is hidden in this command, if it is. */
function valueHiderOf(name: string, state: CommandState): ValueHider | undefined {
  if (isSecretName(name) || state.tool?.passwordOptions.includes(name)) return WHOLE;
  const kind = OPTION_VALUES.get(name);
  return kind && HIDERS[kind];
}

/** `-pSECRET`, `-uuser:pw`, `-H'Authorization: x'`: a short option that takes a value, with it attached. */
function hideAttached(value: string, state: CommandState): string | undefined {
  const attached = SHORT_ATTACHED.exec(value);
  if (!attached) return undefined;
  const [, name, rest] = attached;
  // After the script file, `-x…`: the program's own option might take it as its value.
  const valueHider = valueHiderOf(name, state) ?? (state.afterScript ? WHOLE : undefined);
  return valueHider && `${name}${valueHider(rest, state)}`;
}

function hideOption(name: string, value: string | undefined, state: CommandState): string {
  const valueHider = valueHiderOf(name, state);
  if (value === undefined) {
    state.valueHider = valueHider;
    return name;
  }
  return `${name}=${(valueHider ?? (state.afterScript ? WHOLE : AS_WORD))(value, state)}`;
}

/**
 * `NAME=value` (NAME=…, whatever the name: REDIS_URL holds a URL, PGPASSWORD a password, and no
 * list of names is complete); `key=value` with another key (`http.extraHeader=…`, `?token=…`) by its
 * key and value. Undefined when `value` is no assignment.
 */
function hideAssignment(value: string, raw: string, state: CommandState): string | undefined {
  const pair = KEY_VALUE.exec(value);
  if (!pair) return undefined;
  const [, name, assigned] = pair;
  // `sh -c 'A=x tsx …'`: a quoted word with a space in it is a command, not an assignment.
  if (/\s/.test(value) && !raw.startsWith(`${name}=`)) return undefined;
  if (VARIABLE.test(name) || isSecretName(name)) return `${name}=…`;
  return `${name}=${AS_WORD(assigned, state)}`;
}

/** What a plain word tells about the words after it: a script file, a tool, redis-cli's AUTH. */
function noteCommandWord(word: string, state: CommandState): void {
  if (SCRIPT_FILE.test(word)) state.afterScript = true;
  const tool = toolOf(word);
  if (tool) state.tool = tool;
  // AUTH in capitals is Redis's wherever it stands (`printf 'AUTH pw' | redis-cli`: the words reach
  // redis-cli through a pipe); in any case after a Redis client.
  else if (word === 'AUTH' || (state.tool?.redis && /^auth$/i.test(word))) state.afterAuth = true;
  // `deno eval '…'`: the code comes next, after any options.
  else if (word === state.tool?.codeCommand) state.codeNext = true;
  // `redis-cli CONFIG SET requirepass x`, `… masterauth x`
  else if (state.tool?.redis && isSecretName(word)) state.valueHider = WHOLE;
}
