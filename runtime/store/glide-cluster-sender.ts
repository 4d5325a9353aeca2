// A GlideClusterClient's lock commands of one tick, sent as one pipeline, each a script whose reply
// echoes a nonce it was sent with.
//
// GLIDE pairs replies with requests by position on each node's connection, as every client does:
// a reply lost on a connection that stays up (a proxy or middlebox in front of Redis dropped it)
// makes each later request there read the reply of the one before it, for good (pairing-ping.ts).
// On one connection the store checks that with a PING after the commands (glide-pipeline.ts); on
// a cluster GLIDE routes each command to its slot's primary and follows redirections (MOVED, ASK)
// by itself, so which connection brought a reply is not known here, and no PING could vouch for it.
// So each reply vouches for itself: a command goes as a script that returns `{nonce, reply}`, the
// nonce an argument of its own request (pairing-ping.ts: unguessable, never reused), and its reply
// is used only when it echoes that nonce — then it is that request's, whatever the connection. A
// `SET` runs inside a one-line script; the store's scripts run wrapped, their source the body of a
// function whose result is returned beside the nonce (ARGV keeps its own arguments: the nonce is
// taken off its end first). An error reply carries no nonce, and fails its command as ever: an
// error never grants.
//
// Since each reply is checked by itself, the way the commands travel is free: a tick's commands (up
// to MAX_BATCH, as command-batch.ts writes them) go to GLIDE as one non-atomic ClusterBatch, which
// GLIDE splits per node — one request to GLIDE's core a tick rather than one a command. A script a
// node lacks answers NOSCRIPT in its place (not logged, as a lone EVALSHA's is), and goes again as
// EVAL with its source, which loads it.
//
// A reply that echoes anything else fails its command as on a cut (made or sent again: lock/acquire.ts,
// lock/clean-up.ts), and the connection of its key's primary is ended with a QUIT, which GLIDE
// makes again. A pipeline that timed out may hide a reply lost with no later one to show it (GLIDE
// would give each later request the reply before its own, and sequential ones would all time out):
// which node's is not known, so every primary's connection is ended. At most one QUIT per
// COMMAND_TIMEOUT_MS, as on a standalone client: every command in flight on a shifted connection
// meets the shift at once, and one QUIT each would close the new connection too. A command still
// shifted after that is failed again, and its QUIT comes with the next bound. (After a redirection
// GLIDE routes the key to the primary that answered, so its QUIT goes where the reply came from.)
import { connectionClosed, MAX_BATCH, type CommandSender } from './command-batch';
import { isTimeoutError } from './client-shape';
import { oncePerBound, type GlideBatch, type GlideBatchClass } from './glide-pipeline';
import { pairingNonce } from './pairing-ping';
import { NO_SCRIPT, sha1Of } from './scripts/lua-script';

type Route = { type: 'primarySlotKey'; key: string } | 'allPrimaries';

/** What the store uses of a GlideClusterClient here. */
export interface GlideClusterCommands {
  customCommand(args: string[], options?: { route?: Route }): Promise<unknown>;
  /** `raiseOnError: false`: each failed command's error is in its place among the replies. */
  exec(batch: GlideBatch, raiseOnError: boolean): Promise<unknown[] | null>;
}

/** A script as sent: the store's source wrapped (above), and its SHA1. */
interface Wrapped {
  readonly source: string;
  readonly sha1: string;
}

interface Queued {
  readonly script: Wrapped;
  /** KEYS; the first is the lock key, whose slot's primary runs it. */
  readonly keys: readonly string[];
  /** ARGV, the nonce last. */
  readonly args: readonly string[];
  readonly nonce: string;
  /** Sent as EVAL, after a NOSCRIPT. */
  readonly withSource: boolean;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

function wrap(body: string): Wrapped {
  const source = `local lockweave_nonce = table.remove(ARGV)\nlocal function lockweave_body()\n${body}\nend\nreturn {lockweave_nonce, lockweave_body()}`;
  return { source, sha1: sha1Of(source) };
}

/** A command whose first argument is its key (the store sends only SET so): its name, then its other arguments. */
const COMMAND = 'return redis.call(ARGV[1], KEYS[1], unpack(ARGV, 2))';

export function glideClusterSender(client: GlideClusterCommands, ClusterBatch: GlideBatchClass): CommandSender {
  let command: Wrapped | undefined;
  const scripts = new Map<string, Wrapped>();
  let queue: Queued[] = [];
  /** Ends the connection(s) the route names (see above). */
  const quit = oncePerBound((route: Route) => {
    client.customCommand(['QUIT'], { route }).catch(() => undefined); // it fails as the connection closes
  });

  const settle = (queued: Queued, reply: unknown) => {
    if (reply instanceof Error) {
      if (!queued.withSource && NO_SCRIPT.test(reply.message)) return enqueue({ ...queued, withSource: true });
      return queued.reject(reply);
    }
    if (Array.isArray(reply) && reply.length <= 2 && String(reply[0]) === queued.nonce)
      return queued.resolve(reply[1] ?? null);
    quit({ type: 'primarySlotKey', key: queued.keys[0]! });
    queued.reject(connectionClosed());
  };

  const flush = () => {
    const batch = queue;
    if (batch.length === 0) return; // sent already: it filled up before the end of the tick
    queue = [];
    const pipeline = new ClusterBatch(false);
    for (const { script, keys, args, withSource } of batch)
      pipeline.customCommand([
        withSource ? 'EVAL' : 'EVALSHA',
        withSource ? script.source : script.sha1,
        String(keys.length),
        ...keys,
        ...args,
      ]);
    client.exec(pipeline, false).then(
      (replies) => {
        if (replies?.length !== batch.length) {
          quit('allPrimaries');
          const error = connectionClosed();
          for (const queued of batch) queued.reject(error);
          return;
        }
        for (let index = 0; index < batch.length; index++) settle(batch[index]!, replies[index]);
      },
      (error: unknown) => {
        if (isTimeoutError(error)) quit('allPrimaries');
        for (const queued of batch) queued.reject(error);
      },
    );
  };

  const enqueue = (queued: Queued) => {
    if (queue.length === 0) process.nextTick(flush);
    queue.push(queued);
    // A few at a time, as command-batch.ts writes them: a pipeline's callers wait for its last reply.
    if (queue.length >= MAX_BATCH) flush();
  };

  const run = (script: Wrapped, keys: readonly string[], args: readonly string[]) =>
    new Promise<unknown>((resolve, reject) => {
      const nonce = pairingNonce();
      enqueue({ script, keys, args: [...args, nonce], nonce, withSource: false, resolve, reject });
    });

  return {
    send: (name, args) => run((command ??= wrap(COMMAND)), [String(args[0])], [name, ...args.slice(1).map(String)]),
    script: (source, sha1, keys, args) => {
      let script = scripts.get(sha1);
      if (!script) scripts.set(sha1, (script = wrap(source)));
      return run(script, keys, args.map(String));
    },
  };
}
