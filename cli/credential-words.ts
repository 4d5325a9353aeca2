// The words after which a command line holds a credential: secret words in a name, options that
// take a credential or a value with one inside, tools whose short options take a password. The
// one table cli/without-credentials.ts judges a command's words by.

/**
 * Words that make a name a secret's, looked for anywhere in the name with its case, digits and
 * separators taken away: `dbPassword`, `DB_PASSWORD`, `db.password` and `dbpassword` all hold
 * `password`, `redisAuthToken` holds `auth` and `token`, `requirepass` holds `pass`.
 *
 * Not the same fact as runtime/base/safe-error.ts's PASSWORD_FIELDS: those are the exact option
 * fields whose values lockweave collects and then replaces wherever they appear in an error's
 * text. A guess by part of a name is right here, where a wrong guess hides one word of a command,
 * and wrong there, where it would take `keyPrefix: 'lw'` for a password and blank `lw` out of
 * every message.
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

/** True when `name` holds one of the secret words, however its parts are joined. */
export function isSecretName(name: string): boolean {
  const letters = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_WORDS.some((word) => letters.includes(word));
}

/** What an option's value is: a credential, `user:password`, or a header (`Authorization: …` is one). */
export type ValueKind = 'secret' | 'user:password' | 'header';

/** Options whose value is or may hold a credential, whatever the tool (curl's, wget's, docker's…). */
export const OPTION_VALUES: ReadonlyMap<string, ValueKind> = new Map([
  ['-u', 'user:password'],
  ['--user', 'user:password'],
  ['-U', 'user:password'],
  ['--proxy-user', 'user:password'],
  ['-H', 'header'],
  ['--header', 'header'],
  ['--proxy-header', 'header'],
]);

/**
 * A tool whose short options take a password, attached (`-pSECRET`) or as the next word; or an
 * interpreter, whose options that take code take text nobody can read a password out of.
 */
export interface Tool {
  readonly passwordOptions: readonly string[];
  /** A Redis client: after AUTH come credentials; after a secret word (`CONFIG SET requirepass`), one. */
  readonly redis?: true;
  /**
   * An interpreter's options that take code (`-e`, `--eval`, `-p`, `--print`, python's `-c`): the
   * code, attached or the next word, is hidden whole, as a script file's text would be.
   */
  readonly codeOptions?: readonly string[];
  /** The subcommand whose next word that is no option is code: `deno eval '…'`. */
  readonly codeCommand?: string;
}

const REDIS_CLIENT: Tool = { passwordOptions: ['-a'], redis: true };
// mysql's -p takes its password attached (`-pSECRET`); a separate word is the database, hidden
// too: whoever wrote `mysql -p x` meant x as the password.
const PASSWORD_P: Tool = { passwordOptions: ['-p'] };

// Interpreters: node's -e, -p and -pe (print the evaluated code), the same in bun, tsx and ts-node;
// deno's `eval`; the code options of the other languages a script may run.
const JS_EVAL: Tool = { passwordOptions: [], codeOptions: ['-e', '--eval', '-p', '--print', '-pe', '-ep'] };
const INTERPRETERS: readonly (readonly [string, Tool])[] = [
  ...['node', 'nodejs', 'bun', 'tsx', 'esno', 'ts-node', 'ts-node-esm', 'ts-node-transpile-only', 'ts-node-script'].map(
    (name) => [name, JS_EVAL] as const,
  ),
  ['deno', { passwordOptions: [], codeCommand: 'eval' }],
  ...['python', 'python2', 'python3', 'pypy', 'pypy3'].map(
    (name) => [name, { passwordOptions: [], codeOptions: ['-c'] }] as const,
  ),
  ['ruby', { passwordOptions: [], codeOptions: ['-e'] }],
  ['perl', { passwordOptions: [], codeOptions: ['-e', '-E'] }],
  ['php', { passwordOptions: [], codeOptions: ['-r'] }],
];

const TOOLS = new Map<string, Tool>([
  ...INTERPRETERS,
  ...['redis-cli', 'valkey-cli', 'keydb-cli', 'redis-benchmark', 'valkey-benchmark'].map(
    (name) => [name, REDIS_CLIENT] as const,
  ),
  ...[
    'mysql',
    'mariadb',
    'mysqldump',
    'mariadb-dump',
    'mysqladmin',
    'mysqlimport',
    'mysqlshow',
    'mysqlcheck',
    'mongo',
    'mongosh',
    'mongodump',
    'mongorestore',
    'mongoexport',
    'mongoimport',
    'sshpass',
    // A registry's `docker login -p x` (podman, helm registry, oras, skopeo alike): the subcommand's word.
    'login',
  ].map((name) => [name, PASSWORD_P] as const),
]);

/**
 * The tool a word runs, by its file name (`node_modules/.bin/redis-cli`, `redis-cli.exe`), a
 * package's version gone (`npx tsx@4`), a minor version too (`python3.12`).
 */
export function toolOf(word: string): Tool | undefined {
  const name = word
    .replace(/^.*[\\/]/, '')
    .replace(/\.(?:exe|cmd)$/i, '')
    .replace(/(?<=.)@[^@]*$/, '')
    .replace(/^(python\d?)(?:\.\d+)+$/, '$1');
  return TOOLS.get(name);
}
