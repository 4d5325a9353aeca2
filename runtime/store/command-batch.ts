// The store's commands of one tick, written to Redis together.
//
// Why: on a busy process most of a lock's cost is not Redis and not our code but the socket
// write of each command — one system call apiece (half the CPU of an uncontended run, measured
// with --cpu-prof). Many callers locking at once send their SETs and releases in the same tick;
// gathered into one pipeline they cost one write. ioredis does this itself with
// `enableAutoPipelining`, which the runtime turns on for connections it opens; a client the user
// passes in keeps its own options, so the store gathers its own commands the same way.
//
// What it does not change: each command is still its own command, answered and failed on its
// own (an error fails only the caller it belongs to), with the client's command timeout; they
// leave in the order they were given; nothing waits longer than the end of the current tick.
// Redis Cluster pipelines must keep to one slot, so a Cluster client sends each command alone
// (ioredis's own autopipelining groups by node there, when the user turns it on).
import type { Cluster, Redis } from 'ioredis';

type Reply = unknown;

interface Queued {
  readonly name: string;
  readonly args: readonly (string | number)[];
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: unknown) => void;
}

export interface CommandSender {
  send(name: string, args: readonly (string | number)[]): Promise<Reply>;
}

/** Sends each command of a tick in one pipeline; a Cluster client, each alone. */
export function commandSender(client: Redis | Cluster): CommandSender {
  if (isCluster(client)) return { send: (name, args) => client.call(name, ...args) };
  return new CommandBatch(client);
}

export function isCluster(client: Redis | Cluster): client is Cluster {
  return 'nodes' in client && typeof client.nodes === 'function';
}

class CommandBatch implements CommandSender {
  private queue: Queued[] = [];

  constructor(private readonly client: Redis) {}

  send(name: string, args: readonly (string | number)[]): Promise<Reply> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) process.nextTick(() => this.flush());
      this.queue.push({ name, args, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 1) {
      const [only] = batch;
      this.client.call(only.name, ...only.args).then(only.resolve, only.reject);
      return;
    }
    const pipeline = this.client.pipeline();
    for (const command of batch) pipeline.call(command.name, ...command.args);
    pipeline.exec().then(
      (replies) => {
        batch.forEach((command, index) => {
          const [error, reply] = replies?.[index] ?? [new Error('lockweave: no reply for a pipelined command'), undefined];
          if (error) command.reject(error);
          else command.resolve(reply);
        });
      },
      (error: unknown) => batch.forEach((command) => command.reject(error)),
    );
  }
}
