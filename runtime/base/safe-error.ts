// An error from a Redis client, as lockweave passes it on (as a `cause`, in a logger event), and
// the text of one, as lockweave quotes it in a message of its own.
//
// Client errors carry more than their message: ioredis puts the failed command on a ReplyError
// (`command: { name: 'auth', args: [user, password] }` when AUTH is refused), node-redis keeps the
// errors behind a reconnect failure, and a JSON logger of errors prints all of it. What is passed
// on is a copy with the message, the stack, the class and the fields that explain a connection
// failure, and a copied cause chain: never the command or its arguments.
//
// The text itself can hold them too: Redis answers a command it does not know by echoing its
// arguments ("ERR unknown command 'auth', with args beginning with: 'lw' 'Hunter2'"), which is what
// AUTH gets from a server that renamed it away or a proxy that lacks it. So every message and stack
// lockweave passes on or quotes goes through safeText: the echo is cut, and the credentials the
// connection is configured with (credentialsOf) are replaced wherever they stand.

/** The secrets of a connection: passwords are hidden wherever they appear, user names where they stand alone. */
export interface Credentials {
  readonly passwords: readonly string[];
  readonly users: readonly string[];
}

export const NO_CREDENTIALS: Credentials = { passwords: [], users: [] };

/** What a credential is replaced with. */
const HIDDEN = '***';

/**
 * A server's echo of a command's arguments (Redis 6 with back quotes, 7 and Valkey with quotes):
 * cut to the end of its line, where the server's reply ends.
 */
const ARGUMENT_ECHO = /(with args beginning with:)[^\r\n]*/gi;

/** `text` without an echo of command arguments and without any of `credentials`. */
export function safeText(text: string, credentials: Credentials = NO_CREDENTIALS): string {
  let safe = text.replace(ARGUMENT_ECHO, '$1 (not shown)');
  // Longest first, so that a password holding a shorter one is replaced whole.
  const passwords = spellings(credentials.passwords).sort((a, b) => b.length - a.length);
  for (const password of passwords) safe = safe.split(password).join(HIDDEN);
  for (const user of spellings(credentials.users)) {
    // A user name is hidden where it is a word of its own: `default` or `app` inside other words stays.
    safe = safe.replace(new RegExp(`(?<![\\w.-])${escapeRegExp(user)}(?![\\w.-])`, 'g'), HIDDEN);
  }
  return safe;
}

/** Each credential as given and as it is written in a URL. */
function spellings(values: readonly string[]): string[] {
  const all = new Set<string>();
  for (const value of values) {
    if (value === '') continue;
    all.add(value);
    all.add(encodeURIComponent(value));
  }
  return [...all];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Names under which client options hold a password or a user name (ioredis, node-redis, GLIDE, TLS). */
const PASSWORD_FIELDS = new Set(['password', 'sentinelPassword', 'passphrase']);
const USER_FIELDS = new Set(['username', 'sentinelUsername']);
/** How deep options are searched: a Cluster's `redisOptions`, a node-redis cluster's `rootNodes[i]`. */
const MAX_OPTIONS_DEPTH = 4;
/** node-redis's tables of command definitions: large, and never a credential. */
const NOT_SEARCHED = new Set(['modules', 'functions', 'scripts']);

/**
 * The credentials in a client's options, a URL, or a list of either: every password and user name
 * field of plain objects and arrays within, and the user info of every redis URL. Functions and
 * class instances (a client, a socket, a credentials provider) are not entered.
 */
export function credentialsOf(...sources: unknown[]): Credentials {
  const passwords = new Set<string>();
  const users = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === 'string') return void fromUrl(value, passwords, users);
    if (depth > MAX_OPTIONS_DEPTH || typeof value !== 'object' || value === null || seen.has(value)) return;
    const prototype = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return;
    seen.add(value);
    for (const [field, inner] of Object.entries(value)) {
      if ((typeof inner === 'string' || typeof inner === 'number') && PASSWORD_FIELDS.has(field))
        passwords.add(String(inner));
      else if (typeof inner === 'string' && USER_FIELDS.has(field)) users.add(inner);
      else if (!NOT_SEARCHED.has(field)) walk(inner, depth + 1);
    }
  };
  for (const source of sources) walk(source, 0);
  return { passwords: [...passwords], users: [...users] };
}

function fromUrl(text: string, passwords: Set<string>, users: Set<string>): void {
  if (!text.includes('@') || !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return;
  try {
    const url = new URL(text);
    for (const [part, into] of [
      [url.password, passwords],
      [url.username, users],
    ] as const) {
      if (part === '') continue;
      into.add(part);
      into.add(decodeURIComponent(part));
    }
  } catch {
    // Not a URL: nothing in it names a credential as such.
  }
}

/** The fields kept besides message and stack: what a socket error says (no credentials in any). */
const KEPT = ['code', 'errno', 'syscall', 'address', 'port', 'fatal'] as const;

/** How deep a cause chain is copied; an error's cause pointing back at itself ends here too. */
const MAX_DEPTH = 5;

/**
 * `error` without whatever its client attached beyond the kept fields, and with its message and
 * stack, and those of every cause and inner error, made safe (safeText); the same object when
 * nothing had to change.
 */
export function withoutSecrets(error: unknown, credentials: Credentials = NO_CREDENTIALS, depth = 0): unknown {
  if (!(error instanceof Error))
    return typeof error === 'object' && error !== null
      ? new Error(`a ${error.constructor?.name || 'non-Error'} object was thrown`)
      : typeof error === 'string'
        ? safeText(error, credentials)
        : error;
  if (depth >= MAX_DEPTH) return new Error(safeText(error.message, credentials));
  const cause = 'cause' in error ? withoutSecrets(error.cause, credentials, depth + 1) : undefined;
  const errors =
    error instanceof AggregateError
      ? error.errors.map((inner: unknown) => withoutSecrets(inner, credentials, depth + 1))
      : undefined;
  const message = safeText(error.message, credentials);
  const stack = typeof error.stack === 'string' ? safeText(error.stack, credentials) : error.stack;
  if (
    isClean(error) &&
    message === error.message &&
    stack === error.stack &&
    cause === (error as { cause?: unknown }).cause &&
    (errors === undefined || errors.every((inner, index) => inner === (error as AggregateError).errors[index]))
  )
    return error;
  // Same class (instanceof and name still work), built without its constructor, whose arguments we do not have.
  const copy = Object.create(Object.getPrototypeOf(error)) as Error;
  define(copy, 'message', message);
  define(copy, 'stack', stack);
  if (Object.hasOwn(error, 'name')) define(copy, 'name', error.name);
  for (const key of KEPT)
    if (Object.hasOwn(error, key)) define(copy, key, (error as unknown as Record<string, unknown>)[key], true);
  if ('cause' in error) define(copy, 'cause', cause);
  if (errors) define(copy, 'errors', errors);
  return copy;
}

/** No own fields but message, stack, name, cause, errors and the kept ones. */
function isClean(error: Error): boolean {
  return Object.getOwnPropertyNames(error).every(
    (key) =>
      key === 'message' ||
      key === 'stack' ||
      key === 'name' ||
      key === 'cause' ||
      (key === 'errors' && error instanceof AggregateError) ||
      (KEPT as readonly string[]).includes(key),
  );
}

function define(target: object, key: string, value: unknown, enumerable = false): void {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable });
}
