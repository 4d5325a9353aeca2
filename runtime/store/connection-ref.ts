// Keeping the runtime's own Redis connections from holding a finished process open.
//
// A socket that is ref'd keeps Node's event loop alive, so an open connection would stop a
// script from exiting after its last locked call. An unref'd socket with a command in flight,
// though, lets the process exit in the middle of an `await`. So a connection we own is
// unref'd while idle and ref'd while a command is pending.
import type { Cluster, Redis } from 'ioredis';

type Client = Redis | Cluster;

function socketsOf(client: Client): { ref(): void; unref(): void }[] {
  const sockets: { ref(): void; unref(): void }[] = [];
  const stream = (client as unknown as { stream?: { ref(): void; unref(): void } }).stream;
  if (stream) sockets.push(stream);
  if ('nodes' in client && typeof client.nodes === 'function') {
    for (const node of client.nodes()) sockets.push(...socketsOf(node));
  }
  return sockets;
}

/**
 * ioredis retries a lost connection on a ref'd timer, which would keep a process whose work
 * is done alive for as long as Redis stays down. The timer is set right after the
 * 'reconnecting' event, so it is unref'd on the next tick.
 */
function unrefReconnects(client: Client): void {
  client.on('reconnecting', () =>
    process.nextTick(() => (client as unknown as { reconnectTimeout?: NodeJS.Timeout }).reconnectTimeout?.unref?.()),
  );
}

/** The socket stays unref'd for good (the subscriber: it only waits for notices). */
export function unrefConnection(client: Client): void {
  const apply = () => socketsOf(client).forEach((socket) => socket.unref());
  client.on('connect', apply);
  client.on('ready', apply);
  unrefReconnects(client);
  apply();
}

/** Counts pending commands and refs the socket only while there are some. */
export class ConnectionRef {
  private pending = 0;

  constructor(private readonly client: Client) {
    const apply = () => this.apply();
    client.on('connect', apply);
    client.on('ready', apply);
    unrefReconnects(client);
    apply();
  }

  /** Wraps one command: the process stays up until it settles. */
  track<T>(command: Promise<T>): Promise<T> {
    if (this.pending++ === 0) this.apply();
    return command.finally(() => {
      if (--this.pending === 0) this.apply();
    });
  }

  private apply(): void {
    for (const socket of socketsOf(this.client)) {
      if (this.pending > 0) socket.ref();
      else socket.unref();
    }
  }
}
