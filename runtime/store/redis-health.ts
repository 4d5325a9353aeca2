// What is wrong with the connection to Redis, said plainly and early.
//
// ioredis reports trouble in its own terms: a command sent while Redis is down waits for a
// reconnect and then fails with "Reached the max retries per request limit", naming no host and no
// cause; a `rediss://` URL against a server without TLS reconnects forever; a database the server
// does not have (`redis://…/99`, or `client.select(99)`) fails its SELECT quietly and every command
// goes to database 0 — on the first connection and on every reconnect (an ACL that no longer allows
// SELECT, a failover to a server with fewer databases).
// RedisHealth sits between the store and the client and turns that into:
//   - errors that name the server and the cause (ECONNREFUSED, ENOTFOUND, TLS, auth, database);
//   - failing at once, not after a reconnect wait, while the server is known to be down, so a
//     caller's attempts keep their schedule and its error comes within its wait bound;
//   - commands on a database other than 0 (by the `db` option or a `select()`) only on a connection
//     whose SELECT of it was answered OK, checked once per connection (see databaseReady), and
//     ioredis's own SELECT after a reconnect heard, not left an unhandled rejection (onSelect);
//   - a fatal error for what retrying cannot fix (TLS, auth, database): every command fails with
//     it, acquire gives up at once, and a connection the runtime owns stops reconnecting, so it
//     cannot keep the process alive. A client of the user's goes on reconnecting by its own
//     settings, and a credential refused for a while (a password rotated, an ACL user turned off and
//     on) is not refused for good: once that client is ready again, its commands go out again;
//   - errors without what the client attached to them: an ioredis ReplyError carries its command's
//     arguments (AUTH's are the password), and every error that leaves here, or is a cause of one,
//     is a copy without them (base/safe-error.ts). Their text, and what is quoted of it here, lose a
//     server's echo of a command's arguments and every credential the client is configured with:
//     a server without AUTH answers it with "unknown command 'auth', with args beginning with:"
//     and the password. Addresses are host:port (base/redis-address.ts).
import type { Cluster, Redis } from 'ioredis';
import { COMMAND_TIMEOUT_MS, commandTimedOut, connectionClosed } from './command-batch';
import {
  commandTimeoutOf,
  databaseOf,
  handshakeDatabaseOf,
  isCluster,
  pastHandshake,
  selectsDatabase,
  sentSelects,
} from './ioredis-client';
import { RedisConnectionError } from '../base/errors';
import { setTimer } from '../base/timer-delay';
import { DEFAULT_SENTINEL_PORT, printAddress, printUrlAddress } from '../base/redis-address';
import { type Credentials, credentialsOf, withoutSecrets } from '../base/safe-error';
import { ClientListeners, type ClientEvents } from './client-listeners';
import { clusterReady, ClusterPrimaries } from './cluster-primaries';
import type { GlideClient } from './glide-client';
import type { NodeRedisClient } from './node-redis-client';
import type { NodeRedisCluster } from './node-redis-cluster';

/**
 * An ioredis client, or a node-redis or GLIDE one (which the runtime never owns: no SELECT, no
 * disconnect). GLIDE emits no connection events: it is known down only by its commands' failures.
 */
type WatchedClient = Redis | Cluster | NodeRedisClient | NodeRedisCluster | GlideClient;

/**
 * The clients' own words for "the command never got an answer because the connection is gone":
 * ioredis's, then node-redis's (its command timeout gets its message in node-redis-client.ts),
 * then GLIDE's (its request timeout says only "timed out"; a lost connection, "Connection error").
 */
const CONNECTION_GONE =
  /max retries per request|Connection is closed|Cluster not ready|Stream isn't writeable|Command timed out|connect ETIMEDOUT|The client is (closed|offline)|Socket closed unexpectedly|Connection timeout|^timed out$|Connection error|FatalReceiveError|broken pipe|connection reset/i;
/**
 * What retrying cannot fix, by what the server said. Read on the error's message with the server's
 * host names taken out (withoutHosts): a host name is not a diagnosis ("redis-tls.internal" in a DNS
 * failure, "redis-noauth" in a refused connection).
 */
const FATAL = {
  tls: /SSL|TLS|wrong version number|certificate|self.signed/i,
  credentials: /WRONGPASS|NOAUTH|invalid (user|password)|AUTH failed|invalid username-password/i,
  database: /DB index is out of range|invalid DB index/i,
};
/**
 * A failed TLS handshake, by Node's and OpenSSL's error codes: a protocol mismatch (a rediss:// URL
 * for a plain server), a certificate not trusted, expired or for another name. Not a handshake that
 * timed out: a loaded server may answer the next one.
 */
const TLS_CODES =
  /^(EPROTO|ERR_SSL_\w+|ERR_OSSL_\w+|ERR_TLS_(?!HANDSHAKE_TIMEOUT)\w+|CERT_\w+|CRL_\w+|UNABLE_TO_\w+|ERROR_IN_(CERT|CRL)_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED|HOSTNAME_MISMATCH)$/;
/** The network or the name service failing for now: never fatal, whatever the message says beside the code. */
const TRANSIENT_CODES =
  /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|ENETDOWN|ENETRESET|EPIPE|EADDRNOTAVAIL|ENOTFOUND|EAI_\w+)$/;

/** How long after its last command an owned Cluster keeps trying to reconnect. */
const RECONNECT_WHILE_USED_MS = 10_000;

export class RedisHealth {
  readonly address: string;
  private fatalError: RedisConnectionError | undefined;
  /** The last connection error since the connection was last ready; undefined while it is up. */
  private downWith: Error | undefined;
  /** The SELECT of the database, sent before the first command on a connection that needs it (see databaseReady). */
  private databaseChecked: Promise<void> | undefined;
  /** An ioredis client on one server: its connections may need their database checked (databaseToCheck). */
  private readonly selecting: Redis | undefined;
  /** The socket of the connection whose SELECT was answered OK, and the database it selected (see databaseReady). */
  private databaseCheckedOn: unknown;
  private databaseCheckedIs: number | undefined;
  /** The listeners added to the client's events, taken off at close(). */
  private readonly listeners: ClientListeners | undefined;
  /** The SELECTs the client sent whose replies are heard here (see onSelect). */
  private readonly heardSelects = new WeakSet<Promise<unknown>>();
  /** Told once, at the next 'ready' after the connection was lost (on a Cluster, also a failover). */
  private readonly reconnected = new Set<() => void>();
  private readonly primaries: ClusterPrimaries | undefined;
  private lastSentAt = Date.now();

  constructor(
    private readonly client: WatchedClient,
    /** The runtime opened the connection: it may stop it from reconnecting. */
    private readonly owned: boolean,
    /** Called once when the connection turns out unusable for good (to close the subscriber too). */
    private readonly onFatal: () => void,
  ) {
    this.address = addressOf(client);
    this.selecting = 'status' in client && !isCluster(client) ? client : undefined;
    // Both families emit 'error' for each connection failure and 'ready' once usable again; GLIDE
    // emits nothing (and reconnects by itself).
    if (!('on' in client)) return;
    const events = (this.listeners = new ClientListeners(client as unknown as ClientEvents));
    events.on('error', (error: Error) => this.onError(error));
    events.on('ready', () => {
      this.downWith = undefined;
      // The user's client connected again by itself, so what it was refused is granted now (a
      // password rotated, an ACL user turned on again): its commands go out again — a refused
      // database's only after the new connection's SELECT is answered OK, as every connection's is
      // (send), so a refusal it repeats is a refusal again. An owned connection was stopped at its
      // fatal error and comes back only through a new configure().
      if (!this.owned && this.fatalError) this.fatalError = undefined;
      this.tellReconnected();
    });
    if ('status' in client && isCluster(client))
      this.primaries = new ClusterPrimaries(client, events, () => this.tellReconnected());
    // A node-redis cluster says so of each node (one reconnected, a promoted replica connected).
    if ('masters' in client) events.on('node-ready', () => this.tellReconnected());
    if (this.selecting) events.on('select', () => this.onSelect());
  }

  /**
   * Takes the store's listeners off the client: a client of the user's outlives the store
   * (client-listeners.ts). A lease still held on it then learns of a reconnect by its timed
   * retries only (lock/clean-up.ts).
   */
  close(): void {
    this.listeners?.removeAll();
  }

  private tellReconnected(): void {
    const listeners = [...this.reconnected];
    this.reconnected.clear();
    for (const listener of listeners) listener();
  }

  /** The error a command must fail with right away, if any. */
  get refusal(): RedisConnectionError | undefined {
    if (this.fatalError) return this.fatalError;
    if (this.downWith && !isReady(this.client)) return this.unreachable(this.downWith);
    return undefined;
  }

  /** See LockStore.onceReconnected. */
  onceReconnected(listener: () => void): () => void {
    this.reconnected.add(listener);
    this.primaries?.watchWhile(() => this.reconnected.size > 0);
    return () => this.reconnected.delete(listener);
  }

  /**
   * Whether a command was sent lately. A Cluster the runtime opened keeps reconnecting only while
   * so (configure.ts): each try of ioredis's leaves ref'd timers behind, which would keep a process
   * whose work is done alive for as long as the cluster is down.
   */
  get recentlyUsed(): boolean {
    return Date.now() - this.lastSentAt < RECONNECT_WHILE_USED_MS;
  }

  /**
   * Sends `command` unless Redis is known to be unusable; its connection errors come back explained.
   * `read`, which must not throw, turns its reply into the answer in the same step.
   */
  send<T, A = T>(command: () => Promise<T>, read?: (reply: T) => A): Promise<A> {
    this.lastSentAt = Date.now();
    // An owned Cluster that stopped reconnecting (unused while down) connects again on demand.
    if (this.primaries && this.owned && (this.client as Cluster).status === 'end') {
      this.downWith = undefined;
      (this.client as Cluster).connect().catch(() => undefined);
    }
    const refusal = this.refusal;
    if (refusal) return Promise.reject(refusal);
    // The hot path adds one promise to the command's own: the handler that reads its reply or explains its failure.
    const sent = this.sendsAtOnce
      ? command()
      : this.primaries && (this.client as Cluster).status !== 'ready'
        ? clusterReady(this.client as Cluster).then(command)
        : this.databaseReady().then(command);
    return sent.then(read, (error: unknown) => Promise.reject(this.explain(error))) as Promise<A>;
  }

  /**
   * Whether a command sent now goes out at once: not held first for a Cluster to be ready or a
   * connection's database to be checked (send). Its bound then starts now (ScriptedLockStore.settlesWithin).
   */
  get sendsAtOnce(): boolean {
    if (this.primaries && (this.client as Cluster).status !== 'ready') return false;
    return this.databaseToCheck() === undefined || this.onCheckedDatabase();
  }

  /** An attempt got no answer within `waitedMs`: the connection's known trouble, else a timeout (see LockStore.silence). */
  silence(waitedMs: number): RedisConnectionError {
    return (
      this.fatalError ??
      this.unreachable(
        this.downWith ?? new Error(`an attempt timed out: no answer within ${waitedMs} ms (the caller's wait bound)`),
      )
    );
  }

  private explain(error: unknown): unknown {
    if (error instanceof RedisConnectionError || !(error instanceof Error)) return this.safe(error);
    if (this.fatalError) return this.fatalError;
    return CONNECTION_GONE.test(error.message) ? this.unreachable(this.downWith ?? error, error) : this.safe(error);
  }

  /**
   * The credentials the client is configured with, read when an error is explained: a client of the
   * user's may have been given a new password since (options.password, a node-redis cluster's
   * defaults, GLIDE's credentials).
   */
  private get credentials(): Credentials {
    const client = this.client as {
      options?: unknown;
      _options?: unknown;
      startupNodes?: unknown;
      config?: unknown;
    };
    return credentialsOf(client.options, client._options, client.startupNodes, client.config);
  }

  /** `error` as it may leave here: see base/safe-error.ts. */
  private safe<T>(error: T): T {
    return withoutSecrets(error, this.credentials) as T;
  }

  private unreachable(raw: Error, rawCommand?: Error): RedisConnectionError {
    const cause = this.safe(raw);
    const command = rawCommand && rawCommand !== raw ? this.safe(rawCommand) : undefined;
    let detail = command ? `${cause.message} (${command.message})` : cause.message;
    // ioredis says this when a round of Sentinels gave no primary that answered, though the Sentinels
    // may have answered (in a failover they name the dead primary until the promotion); and a Sentinel
    // client the runtime opened does retry, through its reconnects (store/connection-ref.ts).
    detail = detail.replace(
      /All sentinels are unreachable( and retry is disabled)?\./,
      'no Sentinel named a primary that answered (none answered, or the primary it named did not).',
    );
    const tls = (this.client as { options?: { tls?: unknown } }).options?.tls;
    if (tls && /ETIMEDOUT|timed out/.test(detail))
      detail +=
        '; it accepted the connection but did not complete a TLS handshake: is it a rediss:// URL for a server without TLS?';
    return new RedisConnectionError(`Redis at ${this.address} is unreachable: ${detail}`, this.address, false, {
      cause,
    });
  }

  /**
   * ioredis sent a SELECT that changes the database: a select() of the user's, or its own — once a
   * connection is ready it SELECTs the database of the one that closed (a user's select() chose it),
   * and it drops that promise. Refused (an ACL without SELECT, a failover to a server with fewer
   * databases), that would be an unhandled rejection, which ends the user's process; heard here,
   * it is the database refusal it is, as the handshake's SELECT of `db` is (an 'error').
   */
  private onSelect(): void {
    for (const reply of sentSelects(this.selecting!)) {
      if (this.heardSelects.has(reply)) continue;
      this.heardSelects.add(reply);
      reply.catch((error: unknown) => {
        if (error instanceof Error) this.onError(error);
      });
    }
  }

  private onError(error: Error): void {
    // A refused SELECT is a database refusal whatever it says (NOPERM too): ioredis goes on with the
    // connection in database 0. The commands wait for their own check anyway (send).
    const kind = refusesDatabase(error) ? 'database' : this.fatalKind(error);
    if (kind === 'database') return this.fail(this.noDatabase(error));
    if (kind === 'credentials') return this.fail(this.fatal('it refused the credentials', error));
    if (kind === 'tls')
      return this.fail(
        this.fatal(
          'the TLS handshake failed (a rediss:// URL for a server without TLS, or a certificate it does not trust?)',
          error,
        ),
      );
    if (!isReady(this.client)) this.downWith = error;
  }

  /**
   * Which fatal failure `error` is, if any. A socket or DNS failure never is. A TLS failure is
   * told by its code; an error without a code (a server's reply) by its message, host names taken out.
   */
  private fatalKind(error: Error): keyof typeof FATAL | undefined {
    const { code, syscall } = error as { code?: unknown; syscall?: unknown };
    if (typeof code === 'string' && TRANSIENT_CODES.test(code)) return undefined;
    if (syscall === 'getaddrinfo') return undefined;
    if (typeof code === 'string' && TLS_CODES.test(code)) return 'tls';
    const said = withoutHosts(error, this.address);
    if (FATAL.database.test(said)) return 'database';
    if (FATAL.credentials.test(said)) return 'credentials';
    if (typeof code !== 'string' && FATAL.tls.test(said)) return 'tls';
    return undefined;
  }

  private noDatabase(error: Error): RedisConnectionError {
    // The SELECT refused names its database: the handshake's (the `db` option) or the one after it.
    const named = (error as { command?: { args?: unknown[] } }).command?.args?.[0];
    const db = named !== undefined ? Number(named) : (this.databaseToCheck() ?? 0);
    if (FATAL.database.test(error.message)) return this.fatal(`it has no database ${db}`, error);
    const after =
      db === 0
        ? `, so commands could go to database ${handshakeDatabaseOf(this.selecting!)} (the client's db option, selected first on each connection)`
        : ', so commands would go to database 0';
    return this.fatal(`it refused to select database ${db}${after}`, error);
  }

  private fatal(what: string, raw: Error): RedisConnectionError {
    const error = this.safe(raw);
    return new RedisConnectionError(`Redis at ${this.address}: ${what}: ${error.message}`, this.address, true, {
      cause: error,
    });
  }

  private fail(error: RedisConnectionError): void {
    if (this.fatalError) return;
    this.fatalError = error;
    if (this.owned) (this.client as Redis | Cluster).disconnect();
    this.onFatal();
  }

  /**
   * The database a connection's SELECT is checked for, if a connection needs a check: an ioredis
   * client's on one server whose connections ioredis SELECTs any database on (ioredis-client.ts,
   * selectsDatabase). Read at each command: a select() of the user's moves the client, and its next
   * connection is checked for the database it moved to.
   */
  private databaseToCheck(): number | undefined {
    const client = this.selecting;
    return client && selectsDatabase(client) ? databaseOf(client) : undefined;
  }

  /**
   * Whether the connection open now is the one whose SELECT was answered OK, of the database it is
   * to be in now: a ready connection (one not ready would leave a command to ioredis's offline
   * queue, written on whatever connection comes next) on the same socket.
   */
  private onCheckedDatabase(): boolean {
    const client = this.client as Redis;
    return (
      client.status === 'ready' &&
      client.stream === this.databaseCheckedOn &&
      databaseOf(client) === this.databaseCheckedIs
    );
  }

  /**
   * ioredis SELECTs the URL's database on each connection it makes, and if the server refuses (no
   * such database, an ACL without SELECT) it only emits an 'error' and sends the commands anyway —
   * to database 0, where they would lock keys beside a different application's. So a store checks
   * the SELECT itself before the first command on each connection, one round trip per connection:
   * a reply is read and its promise settled before the connection can close, so the socket open
   * when the answer settles is the one it was answered on. A SELECT asked during the handshake is
   * written at once and could be answered before the connection is ready: it waits for the
   * handshake's end, and is written with the commands ioredis held for the connection.
   *
   * Any error reply is a refusal: fatal, except a server busy for now (a long script, a replica
   * that lost its primary), which refuses this command and leaves the next to check again. A
   * failure of the connection is no verdict: the command fails as unreachable, the next checks again.
   */
  private databaseReady(): Promise<void> {
    const client = this.client as Redis;
    let selected: number | undefined;
    this.databaseChecked ??= answeredOnConnection(
      client,
      // The database read once the handshake is over: ioredis's own SELECT has been sent by then.
      pastHandshake(client).then(() => client.select((selected = databaseOf(client)))),
    ).then(
      () => {
        this.databaseChecked = undefined;
        this.databaseCheckedOn = client.stream;
        this.databaseCheckedIs = selected;
      },
      (error: Error) => {
        this.databaseChecked = undefined;
        if (!refusesDatabase(error)) throw error;
        this.fail(this.noDatabase(error));
        throw this.fatalError;
      },
    );
    return this.databaseChecked;
  }
}

/**
 * `answer`, unless the connection closes or the command bound passes first. Every lock command
 * waits on one database check: left to ioredis, a check never answered would hold them all — a
 * handshake a paused server never finishes, a SELECT on a client without a commandTimeout, one
 * written on a connection that closed (ioredis drops it without a word, told not to re-send it).
 */
function answeredOnConnection<T>(client: Redis, answer: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settle = (then: () => void) => {
      clearTimeout(timer);
      client.off('close', closed);
      then();
    };
    const closed = () => settle(() => reject(connectionClosed()));
    const bound = commandTimeoutOf(client) || COMMAND_TIMEOUT_MS;
    const timer = setTimer(() => settle(() => reject(commandTimedOut(bound))), bound);
    timer.unref();
    client.once('close', closed);
    answer.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/**
 * The server's error reply to a SELECT — ioredis names the command an error reply answers
 * (DataHandler); its own failures (a closed connection, a timeout) name none — other than a server
 * busy for now: a refusal of the database.
 */
function refusesDatabase(error: Error): boolean {
  return (error as { command?: { name?: unknown } }).command?.name === 'select' && !BUSY_FOR_NOW.test(error.message);
}

/** Error replies a server gives for now, to any command: no verdict on the database. */
const BUSY_FOR_NOW = /^(BUSY|LOADING|MASTERDOWN|TRYAGAIN)\b/;

/**
 * The message of `error` without the host names it may hold: the error's own (a DNS failure's
 * `hostname`, a socket's `address`) and the server's (its printed address), each replaced by "host".
 */
function withoutHosts(error: Error, address: string): string {
  const fields = error as { hostname?: unknown; host?: unknown; address?: unknown };
  // The printed address: host:port, or a Sentinel client's words around its Sentinels' host:port.
  const printed = address.split(/,\s*|\s+/).filter((word) => /[:/]/.test(word));
  const hosts = [fields.hostname, fields.host, fields.address, ...printed]
    .filter((host): host is string => typeof host === 'string' && host !== '')
    .map((host) => host.replace(/^\[|\]?(:\d+)?$/g, ''))
    .filter((host) => host.length > 0)
    .sort((a, b) => b.length - a.length);
  let text = error.message;
  for (const host of hosts) text = text.split(host).join('host');
  return text;
}

/** ioredis says `status`, node-redis `isReady`; GLIDE nothing (it is never marked down: no events). */
function isReady(client: WatchedClient): boolean {
  if ('status' in client) return client.status === 'ready';
  return 'isReady' in client ? client.isReady === true : true;
}

function addressOf(client: WatchedClient): string {
  const options = (
    client as {
      options?: {
        host?: string;
        port?: number;
        path?: string;
        sentinels?: Array<{ host?: string; port?: number }>;
        name?: string;
      };
    }
  ).options;
  // A Sentinel client's host and port are ioredis's defaults, not where it connects: name the
  // primary it asks for and the Sentinels it asks.
  if (options?.sentinels?.length) {
    const sentinels = options.sentinels
      .map((node) => printAddress({ host: node.host, port: node.port ?? DEFAULT_SENTINEL_PORT }))
      .join(', ');
    return `the primary ${options.name ?? 'mymaster'} of Sentinels ${sentinels}`;
  }
  if (options?.path) return options.path;
  if (options?.host || options?.port) return printAddress(options);
  // GLIDE: the first of its addresses.
  const glide = (client as { config?: { addresses?: Array<{ host?: string; port?: number }> } }).config?.addresses?.[0];
  if (glide && !('status' in client)) return printAddress(glide);
  // A node-redis cluster: its first root node.
  const rootNodes = (
    client as { _options?: { rootNodes?: Array<{ url?: string; socket?: { host?: string; port?: number } }> } }
  )._options?.rootNodes;
  if (rootNodes?.[0])
    return rootNodes[0].url !== undefined
      ? printUrlAddress(rootNodes[0].url)
      : printAddress({ ...rootNodes[0].socket });
  // node-redis keeps the address (parsed from its URL too) under `socket`; its defaults are ioredis's.
  if (!('status' in client)) return printAddress({ ...(client as NodeRedisClient).options?.socket });
  // An ioredis Cluster: its first startup node, an object, a port, or a URL (whose credentials stay out).
  const nodes = (client as { startupNodes?: Array<string | number | { host?: string; port?: number }> }).startupNodes;
  const first = nodes?.[0];
  if (typeof first === 'object' && first) return printAddress(first);
  if (typeof first === 'number') return printAddress({ port: first });
  return first === undefined ? 'unknown address' : printUrlAddress(first.includes('//') ? first : `redis://${first}`);
}
