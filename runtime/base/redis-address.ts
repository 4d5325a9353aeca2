// Where a Redis server is: the one reading of a redis:// URL, a host and a port, and the one way
// to print an address. Used for `configure({ redis })`, a Cluster's nodes and Redlock's servers
// alike, and by the stores' error messages.
//
// Security: what is printed of a URL or of options is its host and port (and database), never
// its user, password or query, and nothing at all of a URL that does not parse — a password with
// a raw `/`, `@` or `#` splits a URL where no pattern can guess, so text that fails is not echoed.
// The URL is parsed once, here, and the runtime connects with what this parse found: the server
// a check saw is the server the client opens (ioredis's own URL reading differs for such text).

export const DEFAULT_REDIS_PORT = 6379;
export const DEFAULT_SENTINEL_PORT = 26379;

/** A redis:// or rediss:// URL, read. */
export interface RedisUrl {
  readonly tls: boolean;
  /** A hostname, or an IPv6 address without its brackets. */
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  /** Query parameters (ioredis reads them as options); checked by the caller. */
  readonly query: ReadonlyMap<string, string>;
}

const REDIS_PROTOCOLS: Readonly<Record<string, boolean>> = { 'redis:': false, 'rediss:': true };

/** A socket is named by options, one way only: ioredis's reading of path strings differs from a URL's. */
const SOCKET_HINT = 'for a Unix socket, pass options { path: "/path/to/redis.sock" }';

/** Why a URL that does not parse most often does not: said without repeating the text. */
const ENCODE_HINT = 'a user name or password holding / ? # @ : or % must be percent-encoded (encodeURIComponent)';

/**
 * Reads `text` as a redis:// or rediss:// URL naming a host, a port 1–65535 (default 6379) and a
 * database number; anything else is a TypeError that says what is wrong and not what the text was.
 */
export function parseRedisUrl(text: unknown, where: string): RedisUrl {
  if (typeof text !== 'string')
    throw new TypeError(`${where} must be a redis:// or rediss:// URL; got ${describeValue(text)}`);
  if (text.trim() === '') throw new TypeError(`${where} is empty: name a server (redis://host:port)`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    const hint = text.startsWith('/') ? SOCKET_HINT : ENCODE_HINT;
    throw new TypeError(`${where} is not a redis:// or rediss:// URL: it does not parse (${hint})`);
  }
  const tls = REDIS_PROTOCOLS[url.protocol];
  if (tls === undefined) {
    // Printed only when the text writes it as a scheme (`http://`): in `user:password@host` the
    // parser takes the user name for one, and a name is not to be printed.
    const scheme = text.toLowerCase().startsWith(`${url.protocol}//`) ? url.protocol : undefined;
    throw new TypeError(
      scheme === undefined
        ? `${where} is not a redis:// or rediss:// URL: it starts with no scheme (write redis://host:port)`
        : `${where} is not a redis:// or rediss:// URL (${scheme} is not redis: or rediss:${scheme === 'unix:' ? `; ${SOCKET_HINT}` : ''})`,
    );
  }
  // An @ after the host is a password's @ or / that was not encoded: the "host" is part of it.
  if (/@|%40/i.test(url.pathname + url.search + url.hash))
    throw new TypeError(`${where} holds an @ after its host (${ENCODE_HINT})`);
  if (url.hash) throw new TypeError(`${where} has a #fragment, which means nothing to Redis (${ENCODE_HINT})`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new TypeError(`${where} names no host (redis://host:port)`);
  const port = url.port === '' ? DEFAULT_REDIS_PORT : checkPort(Number(url.port), `${where}: its port`);
  const path = url.pathname;
  if (path !== '' && path !== '/' && !/^\/\d{1,9}$/.test(path))
    throw new TypeError(`${where}: its path must be a database number (/0, /1, …)`);
  return {
    tls,
    host,
    port,
    db: path.length > 1 ? Number(path.slice(1)) : 0,
    ...(url.username ? { username: decode(url.username, where) } : {}),
    ...(url.password ? { password: decode(url.password, where) } : {}),
    query: new Map(url.searchParams),
  };
}

function decode(part: string, where: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new TypeError(`${where}: its user name or password holds a % that is not an escape (${ENCODE_HINT})`);
  }
}

/** A hostname or IP address: a non-empty string with nothing that belongs to a URL around it. */
export function checkHost(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new TypeError(`${where} must be a host name or IP address; got ${describeValue(value)}`);
  // Not printed: a host that holds "://" or "@" may be a URL with its credentials.
  if (value.includes('://'))
    throw new TypeError(`${where} is a URL, not a host name: pass the URL itself (configure({ redis: url }))`);
  if (/[@/?#\s\\]|\p{Cc}/u.test(value))
    throw new TypeError(`${where} is not a host name or IP address (it holds @ / ? # \\ or white space)`);
  return value;
}

/** A TCP port, 1–65535; a string of digits (from an environment variable) is read as its number. */
export function checkPort(value: unknown, where: string): number {
  const port = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new TypeError(
      `${where} must be a port from 1 to 65535; got ${typeof port === 'number' ? String(port) : describeValue(value)}`,
    );
  }
  return port;
}

/**
 * How an address is printed in every message, warning and error: `host:port` (`[::1]:6379`), a
 * socket path, or a URL's host, port and database — never its credentials or query.
 */
export function printAddress(address: { host?: string; port?: number | string; path?: string } | RedisUrl): string {
  if ('query' in address) {
    // That a URL holds credentials is worth saying (two URLs may differ in them); what they are, never.
    const credentials = address.username !== undefined || address.password !== undefined ? '…@' : '';
    return `${address.tls ? 'rediss' : 'redis'}://${credentials}${printAddress({ host: address.host, port: address.port })}${address.db ? `/${address.db}` : ''}`;
  }
  if (address.path) return address.path;
  const host = address.host || 'localhost';
  return `${host.includes(':') ? `[${host}]` : host}:${address.port ?? DEFAULT_REDIS_PORT}`;
}

/** `host:port` of a URL (a client's, a node's) read leniently for a message; nothing of it when it does not parse. */
export function printUrlAddress(text: string): string {
  try {
    const { host, port } = parseRedisUrl(text, 'a URL');
    return printAddress({ host, port });
  } catch {
    return 'an address that does not parse';
  }
}

/** What a value is, for a message: its type or class, never its content (which may be a secret). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return `an instance of ${value.constructor?.name || 'an unknown class'}`;
  if (typeof value === 'string') return `a string of ${value.length} character(s)`;
  // A number too may be a secret: a password read from YAML or Number(env).
  if (typeof value === 'number') return Number.isFinite(value) ? 'a number' : String(value);
  return typeof value === 'boolean' ? `boolean ${String(value)}` : typeof value;
}
