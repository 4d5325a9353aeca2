// The Redis store on an ioredis client: the verbs are scripted-lock-store.ts's; this file gives
// them ioredis's parts (commands of one tick share a write: command-batch.ts).
// It works with an ioredis `Redis` (single node or Sentinel) or `Cluster`: the lock key and its
// line of waiters share one hash slot (waiting-line.ts), so Cluster sends each script to the node
// that owns the key, and its releases are announced on that key's shard (release-channel.ts).
import type { Cluster, Redis } from 'ioredis';
import { COMMAND_TIMEOUT_MS, commandSender } from './command-batch';
import { commandTimeoutOf, connectionOptions, isCluster } from './ioredis-client';
import { RedisConnectionError } from '../base/errors';
import { ConnectionRef, quitConnection } from './connection-ref';
import { ioredisSubscriber } from './ioredis-subscriber';
import { RedisHealth } from './redis-health';
import { RedisNotices } from './redis-notices';
import { releaseChannels } from './release-channel';
import { DEFAULT_RELEASE_CHANNEL, ScriptedLockStore } from './scripted-lock-store';

export { DEFAULT_RELEASE_CHANNEL } from './scripted-lock-store';

export interface RedisStoreOptions {
  /** The prefix of release channels (release-channel.ts). All processes sharing locks must agree. */
  channel?: string;
  /** True when the store created the client, and so closes it and keeps it from holding the process open. */
  ownsClient?: boolean;
}

export class RedisLockStore extends ScriptedLockStore {
  constructor(
    readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    const channels = releaseChannels(options.channel ?? DEFAULT_RELEASE_CHANNEL, isCluster(client));
    const notices = new RedisNotices(ioredisSubscriber(client), channels);
    const ref = options.ownsClient ? new ConnectionRef(client) : undefined;
    if (!options.ownsClient) warnAboutSettings(client);
    const health = new RedisHealth(client, options.ownsClient === true, () => void notices.close());
    const sender = commandSender(client, commandTimeoutOf(client) ? undefined : COMMAND_TIMEOUT_MS);
    const track = ref && (<T>(command: Promise<T>) => ref.track(command));
    super({ channels, cluster: isCluster(client), notices, sender, health, track });
    this.recentlyUsed = () => health.recentlyUsed;
    // A Cluster is many servers: none of them is the store's (it is never one of Redlock's).
    this.askServerId = isCluster(client)
      ? () => Promise.resolve(undefined)
      : () => {
          const info = health.send(() => sender.send('info', ['server']));
          return serverIdFrom(track ? track(info) : info);
        };
  }

  /** Whether a command was sent lately (see RedisHealth.recentlyUsed). */
  readonly recentlyUsed: () => boolean;

  private readonly askServerId: () => Promise<string | undefined>;

  serverId(): Promise<string | undefined> {
    return this.askServerId();
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.options.ownsClient) await quitConnection(this.client);
  }
}

/**
 * The server's run_id from its INFO reply (LockStore.serverId). INFO refused by an ACL (NOPERM) or
 * renamed away (unknown command) means the server will not say: undefined, as for an INFO without
 * run_id. Any other failure — the connection's, a timeout, a passing error reply such as LOADING —
 * says nothing about the server: it rejects, and it is asked again later.
 */
export function serverIdFrom(info: Promise<unknown>): Promise<string | undefined> {
  return info.then(
    (reply) => /^run_id:(\w+)/m.exec(String(reply))?.[1],
    (error: unknown) => {
      if (isErrorReply(error) && /^(NOPERM|ERR unknown command)/.test(error.message)) return undefined;
      throw error;
    },
  );
}

/** The server's error reply: ioredis's ReplyError, node-redis's ErrorReply (and its subclasses), by class name. */
function isErrorReply(error: unknown): error is Error {
  if (!(error instanceof Error) || error instanceof RedisConnectionError) return false;
  for (
    let proto = Object.getPrototypeOf(error);
    proto && proto !== Error.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name;
    if (name === 'ReplyError' || name === 'ErrorReply') return true;
  }
  return false;
}

/** Clients already told about (a warning per client, however often configure() is called). */
const warned = new WeakSet<object>();

/**
 * A setting of the caller's client that the store cannot undo, said once. ioredis re-sends the
 * commands a lost connection left unanswered: a lock attempt sent just before a disconnect can
 * then take the key after its caller gave up, and keep it from everyone until its lease ends.
 */
function warnAboutSettings(client: Redis | Cluster): void {
  if (connectionOptions(client)?.autoResendUnfulfilledCommands === false || warned.has(client)) return;
  warned.add(client);
  process.emitWarning(
    'the ioredis client passed to configure() re-sends unanswered commands after a reconnect ' +
      '(autoResendUnfulfilledCommands, on by default): a lock attempt sent before a disconnect can then take ' +
      'its key after the caller gave up, keeping it from others until its lease ends. Create the client with ' +
      '{ autoResendUnfulfilledCommands: false }, as the runtime does for the connections it opens.',
    { code: 'LOCKWEAVE_CLIENT_SETTINGS', type: 'lockweave' },
  );
}
