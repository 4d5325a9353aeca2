// A bound on each command of a client that has none of its own.
//
// A client the user passes in keeps its options, and ioredis's default is no command timeout: a
// Redis that takes commands and never answers (paused, swapped out, a network dropping packets)
// would hold a lock attempt, and its caller, forever — past the caller's wait bound. Connections
// the runtime opens set `commandTimeout`; for a caller's client without one, the store gives each
// command the same bound itself. A command given up on may still be applied later: that is any
// lost answer's case, and is handled as one (one token per caller, see lock/acquire.ts).
//
// One sweep over the pending commands, not a timer each: a connection answers in order, so the
// oldest are looked at first and the sweep stops at the first that is still young.
import type { CommandSender } from './command-batch';

/** How long a command may wait for its answer: the runtime's own connections' `commandTimeout`. */
export const COMMAND_TIMEOUT_MS = 2_000;

interface Pending {
  readonly sentAt: number;
  readonly reject: (error: Error) => void;
}

export function withDeadline(sender: CommandSender, timeoutMs = COMMAND_TIMEOUT_MS): CommandSender {
  const pending = new Set<Pending>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    const cutoff = Date.now() - timeoutMs;
    for (const entry of pending) {
      if (entry.sentAt > cutoff) break;
      pending.delete(entry);
      // Worded as the clients word it, so redis-health.ts explains it as an unreachable server.
      entry.reject(new Error(`Command timed out after ${timeoutMs} ms`));
    }
    if (pending.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  return {
    send: (name, args) =>
      new Promise((resolve, reject) => {
        const entry: Pending = { sentAt: Date.now(), reject };
        pending.add(entry);
        // A pending command on the caller's client keeps the process up by itself; the sweep need not.
        sweeper ??= setInterval(sweep, timeoutMs / 4).unref();
        sender.send(name, args).then(
          (reply) => pending.delete(entry) && resolve(reply),
          (error: unknown) => pending.delete(entry) && reject(error),
        );
      }),
  };
}
