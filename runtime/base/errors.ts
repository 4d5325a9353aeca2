// The errors a caller of a locked method can see. Each sets `name` to its class name (so it
// survives minification and reads well in logs) and carries the Redis key it is about.
// A `cause` is kept without what a client attached to it (safe-error.ts): a JSON logger of errors
// prints the whole chain, and an ioredis ReplyError carries its command's arguments. Its text, and
// the text of a RedisConnectionError, lose any echo of command arguments a server put in them
// (safeText); the store has hidden its connection's credentials before (redis-health.ts).
// A message is one printable line (printable.ts): it holds key values, and a key with a newline
// would otherwise forge a line wherever `error.message` is logged. `key` keeps the key as it is.
import { printable } from './printable';
import { safeText, withoutSecrets } from './safe-error';

export class LockError extends Error {
  override name = 'LockError';
  constructor(
    message: string,
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(printable(message), safeOptions(options));
  }
}

/** Every attempt failed: the key stayed held by someone else, or Redis did not answer. */
export class LockAcquireError extends LockError {
  override name = 'LockAcquireError';
  constructor(
    key: string,
    readonly attempts: number,
    readonly waitedMs: number,
    options?: { cause?: unknown },
  ) {
    const safe = safeOptions(options);
    const reason = safe?.cause instanceof Error ? `; last error: ${safe.cause.message}` : '';
    super(`could not acquire ${key} after ${attempts} attempt(s) in ${waitedMs} ms${reason}`, key, safe);
  }
}

/** The key value was null, undefined, empty or not a scalar: no lock was taken and the body did not run. */
export class LockKeyError extends LockError {
  override name = 'LockKeyError';
}

/** A held lock stopped being ours (its lease ended and another holder may have taken the key). */
export class LockLostError extends LockError {
  override name = 'LockLostError';
}

/**
 * The store cannot give the fencing token the caller asked for (the `fencing` option): it ignored
 * the request, or it is Redlock's (independent servers keep no common counter). Trying again
 * cannot help: the caller fails at once (see isFatal).
 */
export class FencingUnavailableError extends LockError {
  override name = 'FencingUnavailableError';
}

/**
 * Why Redis could not be used: the `cause` of a LockAcquireError (and the `error` of a logger event).
 * Not a LockError: it says nothing about a key, only about the server.
 */
export class RedisConnectionError extends Error {
  override name = 'RedisConnectionError';
  constructor(
    message: string,
    /** `127.0.0.1:6379`, or the Cluster's first node. */
    readonly address: string,
    /** True when trying again cannot help: a wrong TLS setting, password or database. */
    readonly fatal: boolean,
    options?: { cause?: unknown },
  ) {
    super(printable(safeText(message)), safeOptions(options));
  }
}

function safeOptions(options: { cause?: unknown } | undefined): { cause?: unknown } | undefined {
  return options && 'cause' in options ? { cause: withoutSecrets(options.cause) } : options;
}

/**
 * An error trying again cannot fix — a wrong TLS setting, password or database, or a store that
 * cannot fence: a caller that meets one stops waiting and fails at once.
 */
export function isFatal(error: unknown): boolean {
  return error instanceof FencingUnavailableError || (error instanceof RedisConnectionError && error.fatal);
}
