// Text the CLI prints but did not write — an argument it was given, a package.json script it
// audited — with whatever could be a credential hidden. The output goes to terminals shared on a
// screen and to CI logs kept and read more widely than the repository or the shell history.
//
// Hidden, word by word as a shell splits a command:
// - the user and password of a URL with a scheme, wherever it stands (scheme://user:pass@host →
//   scheme://…@host);
// - the value of every NAME=value word (NAME=…, whatever the name: REDIS_URL holds a URL, PGPASSWORD a
//   password, and no list of names is complete);
// - the value of an option, or of a quoted key, whose name holds a secret word anywhere in it
//   (--password x, --dbPassword=x, --redisAuthToken x, --requirepass x, "apiKey": "x");
// - after redis-cli (or a tool like it) in a command: the value of -a, and everything after AUTH;
// - the arguments a command passes to the program it runs, after its script file
//   (`tsx src/pay.ts -a x y` → `tsx src/pay.ts -a … …`): they are the program's, and only it knows
//   which of them is a password.
// Hiding too much is the safe way to be wrong: a URL's credentials run to the last @ of its word,
// since a password with a raw @, / or # splits no way a parser can guess (runtime/base/redis-address.ts
// prints nothing of such a URL for the same reason), and a name that merely contains a secret word
// (--passWithNoTests, --keyPrefix) has the word after it hidden too.
import { printable } from '../runtime/base/printable';
import { parseRedisUrl, printAddress } from '../runtime/base/redis-address';

const SCHEME = /[A-Za-z][A-Za-z0-9+.-]*:\/\//g;

/**
 * Words that make a name a secret's, looked for anywhere in the name with its case, digits and
 * separators taken away: `dbPassword`, `DB_PASSWORD`, `db.password` and `dbpassword` all hold
 * `password`, `redisAuthToken` holds `auth` and `token`, `requirepass` holds `pass`.
 */
const SECRET_WORDS = [
  'pass', // passwd, password, requirepass, passphrase
  'pwd',
  'secret',
  'token',
  'key', // apikey, privatekey
  'auth', // masterauth, authorization
  'cred', // credential(s)
  'private',
  'cookie',
  'session',
  'bearer',
  'jwt',
];

/** Tools whose `-a <password>` names the server's password, and after whose AUTH come credentials. */
const REDIS_CLIENTS = new Set(['redis-cli', 'valkey-cli', 'keydb-cli', 'redis-benchmark', 'valkey-benchmark']);

/** A file a command runs (its script, its entry point); the words after it are the program's own. */
const SCRIPT_FILE = /\.[cm]?[jt]sx?$/;

/** One word as a shell reads it: quoted parts (an unclosed quote runs to the end), escapes, plain characters. */
const WORD = /(?:'[^']*'?|"(?:[^"\\]|\\.)*"?|\\.|[^\s'"\\;&|()`])+/y;
/** The same as a value after `=` or `:` in a word or quoted key. */
const VALUE = String.raw`(?:'[^']*'?|"(?:[^"\\]|\\.)*"?|\\.|[^\s'"\\])+`;
/** Where one command ends and another starts: `;`, `&&`, `||`, `|`, `&`, parentheses, backquotes, a new line. */
const SEPARATOR = /[;&|()`\n]+/y;
const SPACE = /[^\S\n]+/y;

/** `"apiKey": "x"`, `'password':x` (JSON or a JavaScript object in a script). */
const QUOTED_KEY = new RegExp(String.raw`(["'])([\w.:-]+)\1(\s*:\s*)${VALUE}`, 'g');

/** `NAME=value` (and PowerShell's `$env:NAME=value`) as a word of its own. */
const ASSIGNMENT = /^((?:\$env:)?[A-Za-z_][A-Za-z0-9_]*)=/;
/** `--name`, `-name`, `--name=value`. */
const OPTION = /^(-{1,2}[A-Za-z][\w.:-]*)(?:=(.*))?$/s;

/** True when `name` holds one of the secret words, however its parts are joined. */
function isSecretName(name: string): boolean {
  const letters = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_WORDS.some((word) => letters.includes(word));
}

/** `text` (a script, a command, a word) with URL credentials, assigned values and secret values hidden. */
export function withoutCredentials(text: string): string {
  const keysHidden = text.replace(QUOTED_KEY, (whole, quote: string, name: string, colon: string) =>
    isSecretName(name) ? `${quote}${name}${quote}${colon}…` : whole,
  );
  return hideInCommands(hideUrlCredentials(keysHidden));
}

/**
 * One command-line argument as a message may show it: a redis:// URL by its host:port only (as
 * `--redis` is printed), any other URL not at all, other text with `withoutCredentials`.
 */
export function printArgument(arg: string): string {
  if (!arg.includes('://')) return printable(withoutCredentials(arg));
  try {
    const { host, port } = parseRedisUrl(arg, 'an argument');
    return `a Redis URL (${printAddress({ host, port })})`;
  } catch {
    return 'a URL (not shown: it may hold credentials)';
  }
}

/** What the words before this one in the same command said about it. */
interface CommandState {
  /** The word before was an option (or redis-cli's `-a`) whose value this word is. */
  valueOfSecret: boolean;
  /** A redis-cli-like tool runs this command. */
  redisClient: boolean;
  /** AUTH came (after a redis-cli): every word after it is a credential. */
  afterAuth: boolean;
  /** A script file came: the words after it are the program's arguments. */
  afterScript: boolean;
}

const newCommand = (): CommandState => ({
  valueOfSecret: false,
  redisClient: false,
  afterAuth: false,
  afterScript: false,
});

/** Each word of each command in `text` hidden or kept by what it is and what came before it. */
function hideInCommands(text: string): string {
  let shown = '';
  let state = newCommand();
  for (let at = 0; at < text.length; ) {
    const separator = take(SEPARATOR, text, at);
    if (separator !== undefined) {
      shown += separator;
      at += separator.length;
      state = newCommand();
      continue;
    }
    const space = take(SPACE, text, at);
    if (space !== undefined) {
      shown += space;
      at += space.length;
      continue;
    }
    // A lone quote or backslash that no word takes is kept as it is, and everything after it read on.
    const word = take(WORD, text, at) ?? text[at];
    shown += hideWord(word, state);
    at += word.length;
  }
  return shown;
}

function take(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0] || undefined;
}

function hideWord(word: string, state: CommandState): string {
  if (state.afterAuth) return '…';
  if (state.valueOfSecret) {
    state.valueOfSecret = false;
    // `--password --verbose`: the next long option is not the password.
    if (!/^--[A-Za-z]/.test(word)) return '…';
  }
  const option = OPTION.exec(word);
  // The program's arguments, quoted or not: only the names of its options are shown.
  if (state.afterScript && !option && !SCRIPT_FILE.test(word)) return '…';
  const quote = word[0];
  if ((quote === '"' || quote === "'") && word.length > 1 && word.endsWith(quote)) {
    // `sh -c 'PGPASSWORD=x psql …'`, `"--token=x"`: a quoted command or word, read as one.
    return `${quote}${withoutCredentials(word.slice(1, -1))}${quote}`;
  }
  const assignment = ASSIGNMENT.exec(word);
  if (assignment) return `${assignment[1]}=…`;
  if (option) {
    const [, name, value] = option;
    if (value !== undefined) {
      // `--env=PGPASSWORD=x`: an assignment inside a value is hidden as one.
      if (isSecretName(name) || state.afterScript) return `${name}=…`;
      return `${name}=${hideWord(value, newCommand())}`;
    }
    if (isSecretName(name) || (state.redisClient && name === '-a')) state.valueOfSecret = true;
    return word;
  }
  if (SCRIPT_FILE.test(word)) state.afterScript = true;
  const tool = word.replace(/^.*[\\/]/, '');
  if (REDIS_CLIENTS.has(tool)) state.redisClient = true;
  else if (state.redisClient && /^auth$/i.test(word)) state.afterAuth = true;
  // `redis-cli CONFIG SET requirepass x`, `… masterauth x`
  else if (state.redisClient && isSecretName(word)) state.valueOfSecret = true;
  return word;
}

/** scheme://user:pass@host → scheme://…@host, the credentials running to the last @ of the URL's word. */
function hideUrlCredentials(text: string): string {
  let shown = '';
  let from = 0;
  for (const match of text.matchAll(SCHEME)) {
    const start = match.index + match[0].length;
    if (match.index < from) continue; // inside credentials already hidden
    // A quoted URL runs to its closing quote (a space may be inside); a bare one to white space.
    const quote = text[match.index - 1];
    const end = quote === '"' || quote === "'" ? text.indexOf(quote, start) : text.slice(start).search(/\s/) + start;
    const word = text.slice(start, end < start ? text.length : end);
    const at = word.lastIndexOf('@');
    if (at < 0) continue;
    shown += `${text.slice(from, start)}…`;
    from = start + at;
  }
  return shown + text.slice(from);
}
