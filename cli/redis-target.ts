// The Redis that `lockweave locks` and `lockweave unlock` read and change: --redis URL (else
// REDIS_URL, else redis://127.0.0.1:6379, as the runtime reads them), with --cluster for a Redis
// Cluster the URL is one node of. Opened as the runtime opens its own connection, so a command
// talks to the server the locks go to, with the same checks of the URL; printed as host:port
// only, never with its credentials, and what the server says is quoted without them (safeText:
// a server without AUTH echoes the password in its "unknown command" reply).
import type { Cluster, Redis } from 'ioredis';
import { printUrlAddress } from '../runtime/base/redis-address';
import { type Credentials, credentialsOf, safeText } from '../runtime/base/safe-error';
import { assertNoOtherRedisNamed, createStore, DEFAULT_URL } from '../runtime/api/store-factory';
import { holdProcess } from '../runtime/base/process-hold';
import type { RedisLockStore } from '../runtime/store/redis-store';
import { CliError } from './cli-error';
import type { Flag } from './command';

export const REDIS_FLAGS: readonly Flag[] = [
  {
    names: ['--redis'],
    value: '<url>',
    help: 'the Redis the locks are on (default: REDIS_URL, else redis://127.0.0.1:6379)',
  },
  { names: ['--cluster'], help: 'the URL is a node of a Redis Cluster: every primary is read' },
];

export interface RedisTarget {
  readonly store: RedisLockStore;
  /** host:port, for output. */
  readonly address: string;
  /** The URL's and the connection's credentials, hidden in what is printed of the server's errors. */
  readonly credentials: Credentials;
  /** The clients to SCAN: the one server, or a Cluster's primaries. */
  primaries(): Promise<Redis[]>;
  close(): Promise<void>;
}

export function openTarget(flags: Readonly<Record<string, string>>): RedisTarget {
  const named = flags.redis ?? process.env.REDIS_URL;
  const url = named ?? DEFAULT_URL;
  const withoutPrefix = (error: unknown) => (error as Error).message.replace(/^lockweave: /, '');
  let store: RedisLockStore;
  try {
    // The runtime's default only when nothing in the environment names another Redis, as for a lock.
    if (named === undefined) assertNoOtherRedisNamed('pass --redis <url> or set REDIS_URL.');
  } catch (error) {
    throw new CliError(withoutPrefix(error));
  }
  try {
    store = createStore({ redis: flags.cluster ? [url] : url }) as RedisLockStore;
  } catch (error) {
    throw new CliError(`--redis: ${safeText(withoutPrefix(error), credentialsOf(url))}`);
  }
  const client = store.client;
  return {
    store,
    address: printUrlAddress(url),
    credentials: credentialsOf(url, client.options),
    async primaries() {
      if (!client.isCluster) return [client as Redis];
      const cluster = client as Cluster;
      await cluster.ping(); // connects, and loads the slots' owners
      return cluster.nodes('master');
    },
    close: () => store.close(),
  };
}

/** A server that cannot be reached or refuses is the input's problem (exit 1), said without credentials. */
export async function talkingTo<T>(target: RedisTarget, work: () => Promise<T>): Promise<T> {
  // The runtime's own connections never keep a process up (a lock's caller does): this command does.
  const letGo = holdProcess();
  try {
    return await work();
  } catch (error) {
    // A bug is a TypeError or ReferenceError, and keeps its stack; anything else came from the server
    // or the way to it (refused, timed out, a reply error), and is printed without the credentials.
    if (error instanceof Error && !(error instanceof TypeError || error instanceof ReferenceError))
      throw new CliError(`${target.address}: ${safeText(error.message, target.credentials)}`);
    throw error;
  } finally {
    await target.close().catch(() => undefined);
    letGo();
  }
}
