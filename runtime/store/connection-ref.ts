// Keeping the runtime's own Redis connections from holding a finished process open.
//
// A socket that is ref'd keeps Node's event loop alive, so an open connection would stop a
// script from exiting after its last locked call. An unref'd socket with a command in flight,
// though, lets the process exit in the middle of an `await`. So a connection we own is
// unref'd while idle and ref'd while a command is pending.
import type { Cluster, Redis } from 'ioredis';

type Client = Redis | Cluster;

type Socket = { ref(): void; unref(): void; destroyed?: boolean };

function socketsOf(client: Client): Socket[] {
  const sockets: Socket[] = [];
  const stream = (client as unknown as { stream?: Socket }).stream;
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

/**
 * Runs `apply` whenever the client has a socket: on 'connect' and 'ready', and also while it is
 * still connecting — a socket that never connects (a TLS handshake the server does not answer)
 * would otherwise stay ref'd from its creation until its connect timeout, and the next one after
 * it, keeping a finished process alive for good. ioredis emits 'connecting' before it has made
 * the socket, so the socket is looked for once the current callbacks are done.
 */
function onEverySocket(client: Client, apply: () => void): void {
  client.on('connecting', () => setImmediate(apply));
  client.on('connect', apply);
  client.on('ready', apply);
  // A Cluster opens a connection to each node it learns of (and again after a failover).
  if (client.isCluster) client.on('+node', (node: Redis) => onEverySocket(node, apply));
}

/**
 * What each socket was last set to. A socket without a handle (destroyed after a failed connect)
 * defers ref()/unref() to a 'connect' listener that never fires; calling either on it for every
 * command would only pile those listeners up.
 */
const refState = new WeakMap<object, boolean>();

function setRef(socket: Socket, ref: boolean): void {
  if (socket.destroyed || refState.get(socket) === ref) return;
  refState.set(socket, ref);
  if (ref) socket.ref();
  else socket.unref();
}

/** The socket stays unref'd for good (the subscriber: it only waits for notices). */
export function unrefConnection(client: Client): void {
  const apply = () => socketsOf(client).forEach((socket) => setRef(socket, false));
  onEverySocket(client, apply);
  unrefReconnects(client);
  apply();
}

/** Counts pending commands and refs the socket only while there are some. */
export class ConnectionRef {
  private pending = 0;

  constructor(private readonly client: Client) {
    onEverySocket(client, () => this.apply());
    unrefReconnects(client);
    this.apply();
  }

  /** Wraps one command: the process stays up until it settles. */
  track<T>(command: Promise<T>): Promise<T> {
    if (this.pending++ === 0) this.apply();
    return command.finally(() => {
      if (--this.pending === 0) this.apply();
    });
  }

  private apply(): void {
    for (const socket of socketsOf(this.client)) setRef(socket, this.pending > 0);
  }
}
