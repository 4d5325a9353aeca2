// Keeping the runtime's own Redis connections from holding a finished process open.
//
// A socket that is ref'd keeps Node's event loop alive, so an open connection would stop a
// script from exiting after its last locked call. An unref'd socket with a command in flight,
// though, lets the process exit in the middle of an `await`. So a connection we own is
// unref'd while idle and ref'd while a command is pending.
import type { Cluster, Redis } from 'ioredis';
import { holdProcess } from '../base/process-hold';
import { COMMAND_TIMEOUT_MS } from './command-batch';
import { isCluster } from './ioredis-client';
import { setTimer } from '../base/timer-delay';

type Client = Redis | Cluster;

type Socket = { ref(): void; unref(): void; destroyed?: boolean };

function socketsOf(client: Client): Socket[] {
  const sockets: Socket[] = [];
  const stream = (client as unknown as { stream?: Socket }).stream;
  if (stream) sockets.push(stream);
  if (isCluster(client)) {
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
  if ((client as Redis).options?.sentinels) reconnectWhenNoSentinelAnswers(client as Redis);
}

/**
 * How soon a Sentinel client the runtime opened is connected again after a connection attempt in
 * which no Sentinel answered. Longer than the 2 s for which ioredis keeps a ref'd timer after each
 * Sentinel it could not reach (its disconnectTimeout): between two attempts a finished process
 * has nothing holding it, and exits.
 */
const SENTINELS_GONE_RETRY_MS = 2_500;

/**
 * When no Sentinel answers, ioredis tries them all again after a ref'd timer that nothing can
 * reach, which would keep a finished process alive for as long as the Sentinels are gone; so a
 * client the runtime opens gives up after a few rounds (api/configure.ts), and ioredis then ends
 * it — for good. It is connected again here, on an unref'd timer; a reconnect keeps what the
 * client had (its subscriptions included).
 */
function reconnectWhenNoSentinelAnswers(client: Redis): void {
  client.on('error', (error: Error) => {
    if (!error.message.startsWith('All sentinels are unreachable and retry is disabled')) return;
    setTimer(() => {
      // Not when the client was closed meanwhile (ioredis marks that on disconnect() and quit).
      const closed = (client as unknown as { manuallyClosing?: boolean }).manuallyClosing;
      if (client.status === 'end' && !closed) client.connect().catch(() => undefined);
    }, SENTINELS_GONE_RETRY_MS).unref();
  });
}

/**
 * ioredis bounds each command of a connection with a `commandTimeout` on a ref'd timer — its own
 * handshake too (INFO, CLIENT SETINFO), which it sends again on every reconnect. Against a server
 * that accepts connections and never answers, the handshake times out, the connection is dropped and
 * made again, and those timers follow one another for good: a finished process would never exit. On a
 * connection the runtime opened they are unref'd: a caller awaiting a command holds the process
 * itself (base/process-hold.ts), and a command nobody awaits must not. A Cluster's commands time out
 * on its node connections.
 */
function unrefCommandTimers(client: Client): void {
  if (isCluster(client)) {
    for (const node of client.nodes()) unrefCommandTimers(node);
    client.on('+node', (node: Redis) => unrefCommandTimers(node));
    return;
  }
  const redis = client as unknown as { sendCommand(command: object, stream?: unknown): unknown; [unreffing]?: true };
  if (redis[unreffing]) return;
  redis[unreffing] = true;
  const send = redis.sendCommand;
  redis.sendCommand = function (
    this: unknown,
    command: { _commandTimeoutTimer?: { unref?(): void } },
    stream?: unknown,
  ) {
    const sent = send.call(this, command, stream);
    command._commandTimeoutTimer?.unref?.();
    return sent;
  };
}

const unreffing = Symbol('lockweave.unrefCommandTimers');

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
  if (isCluster(client)) client.on('+node', (node: Redis) => onEverySocket(node, apply));
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
  unrefCommandTimers(client);
  apply();
}

/** Counts pending commands and refs the socket only while there are some. */
export class ConnectionRef {
  private pending = 0;

  constructor(private readonly client: Client) {
    onEverySocket(client, () => this.apply());
    unrefReconnects(client);
    unrefCommandTimers(client);
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

/**
 * Closes a connection the runtime opened: QUIT, and a plain disconnect when QUIT fails or has no
 * answer within the command bound (a stalled or silent server). Its caller (close()) awaits it, so
 * the process is held up until it is done: an unref'd socket would let the process exit in the
 * middle of that await, and the code after `await close()` would never run.
 */
export function quitConnection(client: Client): Promise<void> {
  const letGo = holdProcess();
  return new Promise<void>((resolve) => {
    const timer = setTimer(() => {
      client.disconnect();
      resolve();
    }, COMMAND_TIMEOUT_MS);
    timer.unref();
    client
      .quit()
      .then(
        () => undefined,
        () => client.disconnect(),
      )
      .finally(() => {
        clearTimeout(timer);
        resolve();
      });
  }).finally(letGo);
}
