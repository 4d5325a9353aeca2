// The settings of the connections the runtime opens itself (from a URL or options), which a
// client passed in keeps as its owner made it.
import type { ClusterOptions, RedisOptions } from 'ioredis';
import { COMMAND_TIMEOUT_MS } from '../store/command-batch';

/** Why a connection must not send a command again after a reconnect. */
const RESENT =
  'With another value a command whose connection closed is sent again: a lock attempt its caller gave up on could take the key ' +
  'and keep it from everyone until its lease ends.';
/** Why a connection must hand integer replies over as numbers. */
const UNREAD =
  "With integer replies as strings the lock's replies are misread: a renewal that held reads as lost, a release that " +
  'worked as failed, a turn granted as not taken.';

/** The longest pause between reconnects of a connection the runtime opened. */
const RECONNECT_MAX_MS = 250;

/**
 * For connections the runtime opens. Fail rather than hang: a command Redis does not answer in
 * time rejects, and the lock attempt counts as failed. (What keeps a lock right, not only fast, is
 * LOCKING_SETTINGS below, laid over these and the caller's own last.)
 */
export const OWNED_CLIENT_OPTIONS: RedisOptions = {
  commandTimeout: COMMAND_TIMEOUT_MS,
  // A server that accepts the connection but never answers (a rediss:// URL for a plain server)
  // is reported in 3 s, not ioredis's 10, and later attempts fail at once (store/redis-health.ts).
  connectTimeout: 3_000,
  maxRetriesPerRequest: 1,
  // The store writes its commands a few at a time itself (store/command-batch.ts); ioredis's own
  // pipelining would hold each of them to the end of the tick.
  enableAutoPipelining: false,
  // ioredis waits min(50 ms × attempt, 2 s) between reconnects: after an outage of a few seconds it
  // comes back a second or more after Redis does, and keys whose release failed wait for it.
  retryStrategy: (attempt: number) => Math.min(attempt * 50, RECONNECT_MAX_MS),
  // A restarted Redis loading its data answers ioredis's ready check with `loading:1`, and ioredis
  // then waits (ETA || 1 s) before looking again: a second after a small data set loaded in
  // milliseconds. Look again sooner.
  maxLoadingRetryTime: RECONNECT_MAX_MS,
};

/**
 * For a Sentinel client the runtime opens. When no Sentinel answers, ioredis tries them all again
 * after a timer of its own that is ref'd and that nothing can reach: a process whose work is done
 * would stay alive for as long as the Sentinels are gone. So it tries a few rounds at the reconnect
 * pace, then gives up, and the store connects the client again later on an unref'd timer
 * (store/connection-ref.ts). (In a failover the Sentinels answer — with the dead primary until the
 * promotion — and the ordinary reconnects, retryStrategy's, carry the client to the new primary.)
 */
const SENTINEL_ROUNDS = 3;
const OWNED_SENTINEL_OPTIONS: RedisOptions = {
  sentinelRetryStrategy: (round: number) => (round <= SENTINEL_ROUNDS ? Math.min(round * 50, RECONNECT_MAX_MS) : null),
  // ioredis waits for a Sentinel's answer without a timeout: one that takes the connection but never
  // answers (a paused or overloaded host) would stall the client for good, the other Sentinels unasked.
  sentinelCommandTimeout: 1_000,
};

/**
 * The settings that keep a lock right, not only fast: integer replies read as numbers (the lock's
 * scripts answer with them), and never send a command again after a
 * reconnect. A re-sent SET NX that had already been applied would find the key "taken" (by
 * ourselves) and strand it until its lease ends — or take it for a caller that gave up on it — and
 * a re-sent release would find the key gone and report a lost lock that was not lost. A command
 * that errors instead is handled: an attempt whose answer was lost is found ours by the caller's next
 * attempt (one token per caller), a failed release is sent again when the connection is back. A URL
 * or options that ask for another value are refused, naming the setting — not overridden in
 * silence, which would leave the caller believing the connection re-sends, nor taken, which would
 * make the lock wrong. (The timeouts and reconnect pace are the caller's to tune: any value of
 * theirs still bounds a command, and the lock stays right.)
 */
const LOCKING_SETTINGS: Readonly<RedisOptions> = { autoResendUnfulfilledCommands: false, stringNumbers: false };
/** The same for a Cluster: ioredis sends a command whose node connection closed to the slot's next primary after this delay (0: never). */
const CLUSTER_LOCKING_SETTINGS: Readonly<ClusterOptions> = { retryDelayOnFailover: 0 };

/** What another value of each locking setting would do: the refusal says it. */
const WHY_REQUIRED: Readonly<Record<string, string>> = {
  autoResendUnfulfilledCommands: RESENT,
  retryDelayOnFailover: RESENT,
  stringNumbers: UNREAD,
};

/** One server's (or Sentinel's primary's) client: the runtime's settings, then the user's own; `where` names the refused one. */
export function ownedClientOptions(
  user: RedisOptions,
  where = 'lockweave: a connection the runtime opens',
): RedisOptions {
  refuseOtherValues(user, LOCKING_SETTINGS, where);
  return { ...OWNED_CLIENT_OPTIONS, ...(user.sentinels ? OWNED_SENTINEL_OPTIONS : {}), ...user, ...LOCKING_SETTINGS };
}

function refuseOtherValues(user: object, required: object, where: string): void {
  for (const [name, value] of Object.entries(required)) {
    const given = (user as Record<string, unknown>)[name];
    if (!Object.hasOwn(user, name) || given === value) continue;
    throw new TypeError(
      `${where}: ${name} ${String(given)} is refused: the runtime opens its connections with ${name}: ${String(value)}. ` +
        `${WHY_REQUIRED[name]} Leave ${name} out (in a URL's query too).`,
    );
  }
}

/**
 * A client passed in with integer replies as strings — ioredis's `stringNumbers` (any truthy value,
 * as ioredis reads it; on the client or a Cluster's node options), node-redis's type mapping of
 * RESP integers (`withTypeMapping({ [RESP_TYPES.NUMBER]: String })`, or in `commandOptions`):
 * refused when configure() is given it, for the reason an owned connection may not have it. Its
 * other settings are its owner's (redis-store.ts warns of re-sending).
 */
export function assertRepliesReadable(client: unknown, where: string): void {
  const given = client as {
    options?: {
      stringNumbers?: unknown;
      redisOptions?: { stringNumbers?: unknown };
      commandOptions?: { typeMapping?: Record<number, unknown> };
    };
    _commandOptions?: { typeMapping?: Record<number, unknown> };
  };
  const mapped = (given._commandOptions ?? given.options?.commandOptions)?.typeMapping?.[RESP_NUMBER];
  if (given.options?.stringNumbers || given.options?.redisOptions?.stringNumbers)
    throw new TypeError(`${where}: a client with stringNumbers is refused. ${UNREAD} Pass a client without it.`);
  if (mapped !== undefined && mapped !== Number)
    throw new TypeError(
      `${where}: a node-redis client whose type mapping turns integer replies (RESP_TYPES.NUMBER) into another type is refused. ${UNREAD} Pass a client without that mapping.`,
    );
}

/**
 * A client passed in that its Sentinels point at a replica (ioredis's `role: 'slave'`) is refused:
 * a lock is a write, and belongs on the primary — a writable replica would take it where no other
 * process looks. (Options and URLs are checked as configure() reads them: redis-options.ts.)
 */
export function assertOnPrimary(client: unknown, where: string): void {
  if ((client as { options?: { role?: unknown } }).options?.role === 'slave')
    throw new TypeError(
      `${where}: a client made with role: 'slave' connects to a replica, but locks are taken on the primary. Pass a client of the primary.`,
    );
}

/** node-redis's RESP_TYPES.NUMBER, the type byte of an integer reply (`:`). */
const RESP_NUMBER = 58;

/**
 * For a Cluster the runtime opens: the same promises on each node connection, and on the cluster
 * itself no re-send either — ioredis sends a command whose node connection closed again to the
 * slot's next primary (`retryDelayOnFailover`), though the lost primary may have applied it. A
 * command refused with CLUSTERDOWN or TRYAGAIN was not applied, and is retried as ioredis does.
 * No autopipelining: ioredis 5.8's Cluster pipelines fail whole when their keys' slots span nodes
 * ("All keys in the pipeline should belong to the same slots allocation group").
 */
export function ownedClusterOptions(
  user: ClusterOptions,
  fromUrls: RedisOptions,
  inUse: () => boolean,
  where: string,
): ClusterOptions {
  refuseOtherValues(user, CLUSTER_LOCKING_SETTINGS, `${where}: clusterOptions`);
  refuseOtherValues(user.redisOptions ?? {}, LOCKING_SETTINGS, `${where}: clusterOptions.redisOptions`);
  const { retryStrategy: _perNode, ...perNode } = OWNED_CLIENT_OPTIONS;
  return {
    // Reconnects while the store is in use; an unused one ends, and its next command reconnects it.
    clusterRetryStrategy: (attempt: number) => (inUse() ? Math.min(attempt * 50, RECONNECT_MAX_MS) : null),
    ...user,
    ...CLUSTER_LOCKING_SETTINGS,
    redisOptions: { ...perNode, ...fromUrls, ...user.redisOptions, ...LOCKING_SETTINGS },
  };
}
