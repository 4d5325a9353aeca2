// An error from a Redis client, as lockweave passes it on (as a `cause`, in a logger event).
//
// Client errors carry more than their message: ioredis puts the failed command on a ReplyError
// (`command: { name: 'auth', args: [user, password] }` when AUTH is refused), node-redis keeps the
// errors behind a reconnect failure, and a JSON logger of errors prints all of it. What is passed
// on is a copy with the message, the stack, the class and the fields that explain a connection
// failure, and a copied cause chain: never the command or its arguments.

/** The fields kept besides message and stack: what a socket error says (no credentials in any). */
const KEPT = ['code', 'errno', 'syscall', 'address', 'port', 'fatal'] as const;

/** How deep a cause chain is copied; an error's cause pointing back at itself ends here too. */
const MAX_DEPTH = 5;

/** `error` without whatever its client attached beyond the kept fields; the same object when it has nothing more. */
export function withoutSecrets(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error))
    return typeof error === 'object' && error !== null
      ? new Error(`a ${error.constructor?.name || 'non-Error'} object was thrown`)
      : error;
  if (depth >= MAX_DEPTH) return new Error(error.message);
  const cause = 'cause' in error ? withoutSecrets(error.cause, depth + 1) : undefined;
  const errors =
    error instanceof AggregateError
      ? error.errors.map((inner: unknown) => withoutSecrets(inner, depth + 1))
      : undefined;
  if (isClean(error) && cause === (error as { cause?: unknown }).cause && errors === undefined) return error;
  // Same class (instanceof and name still work), built without its constructor, whose arguments we do not have.
  const copy = Object.create(Object.getPrototypeOf(error)) as Error;
  define(copy, 'message', error.message);
  define(copy, 'stack', error.stack);
  if (Object.hasOwn(error, 'name')) define(copy, 'name', error.name);
  for (const key of KEPT)
    if (Object.hasOwn(error, key)) define(copy, key, (error as unknown as Record<string, unknown>)[key], true);
  if ('cause' in error) define(copy, 'cause', cause);
  if (errors) define(copy, 'errors', errors);
  return copy;
}

/** No own fields but message, stack, name and the kept ones. */
function isClean(error: Error): boolean {
  return Object.getOwnPropertyNames(error).every(
    (key) =>
      key === 'message' ||
      key === 'stack' ||
      key === 'name' ||
      key === 'cause' ||
      (KEPT as readonly string[]).includes(key),
  );
}

function define(target: object, key: string, value: unknown, enumerable = false): void {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable });
}
