// A Valkey GLIDE client (@valkey/valkey-glide 2.5 or later 2.x: GlideClient, or GlideClusterClient) as the store
// uses it: how it is recognised, how a command is sent, how the subscriber of release notices is
// opened. The verbs, scripts, keys and channels are the same as on ioredis and node-redis
// (scripted-lock-store.ts), so processes on any of the three share locks.
//
// Described by shape, not imported: GLIDE is an optional peer with a native core, and a user
// without it must be able to compile against lockweave's types and load it.
//
// What GLIDE does itself: it multiplexes every command of the client on its connection (the store
// batches a standalone client's only to check their replies' pairing: glide-pipeline.ts), bounds
// each by the client's `requestTimeout` (250 ms by default) and reconnects on its own. It has no
// connection events: the store learns the connection is gone from commands that time out
// (redis-health.ts reads GLIDE's words).
import type { CommandSender } from './command-batch';
import { hasMethods, libraryExport } from './client-shape';
import { routingKey } from './cluster-slot';
import type { OpenSubscriber } from './redis-notices';
import { COMMAND_TIMEOUT_MS } from './command-batch';
import { glidePipelineSender, type GlideBatchClass, type GlidePipelining } from './glide-pipeline';

/** What configure() accepts as a GLIDE client: `GlideClient.createClient()`'s or `GlideClusterClient.createClient()`'s. */
export interface GlideClientLike {
  customCommand(args: string[], options?: never): Promise<unknown>;
  subscribe(channels: Iterable<string>, timeoutMs: number, options?: never): Promise<void>;
  close(errorMessage?: string): void;
}

/** The one route the store names: the primary of a key's slot. */
interface SlotKeyRoute {
  readonly type: 'primarySlotKey';
  readonly key: string;
}

/** What the store uses of it. */
export interface GlideClient extends GlideClientLike {
  customCommand(args: string[], options?: { route?: SlotKeyRoute }): Promise<unknown>;
  subscribe(channels: Iterable<string>, timeoutMs: number): Promise<void>;
  unsubscribe(channels: Iterable<string> | null, timeoutMs: number): Promise<void>;
  invokeScript?(script: object, options: { keys: string[]; args: string[] }): Promise<unknown>;
  /** Runs a Batch (glide-pipeline.ts). */
  exec?(batch: object, raiseOnError: boolean): Promise<unknown[] | null>;
  /** Only on GlideClusterClient: sharded pub/sub. */
  ssubscribe?(channels: Iterable<string>, timeoutMs: number): Promise<void>;
  sunsubscribe?(channels: Iterable<string> | null, timeoutMs: number): Promise<void>;
  /** The options it was created with (a private field of GLIDE's BaseClient; read for its address and to open the subscriber). */
  readonly config?: GlideConfiguration;
  readonly isClosed?: boolean;
  readonly constructor: { createClient(options: GlideConfiguration): Promise<GlideClient> };
}

export interface GlideConfiguration {
  readonly addresses?: ReadonlyArray<{ readonly host?: string; readonly port?: number }>;
  readonly pubsubSubscriptions?: unknown;
  readonly [option: string]: unknown;
}

/**
 * A GLIDE client, by members GLIDE has and ioredis and node-redis lack: `customCommand`, the
 * dynamic `subscribeLazy`, and `getPubSubMessage`.
 */
export function isGlideClient(value: unknown): value is GlideClient {
  return hasMethods(value, 'customCommand', 'subscribeLazy', 'getPubSubMessage');
}

/** A GlideClusterClient: it alone has sharded pub/sub. */
export function isGlideCluster(client: GlideClient): boolean {
  return typeof client.ssubscribe === 'function';
}

/**
 * Its arguments as strings. A standalone client's commands of a tick go as one pipeline checked by
 * a PING (glide-pipeline.ts), scripts as EVALSHA in it (a NOSCRIPT there, read in its place, is
 * not logged; the EVAL that follows loads the script). A cluster's go each alone, each naming the
 * primary of its key's slot: the key and its line of waiters share that slot (waiting-line.ts), so a
 * script runs where all its keys live; scripts there go through GLIDE's own invokeScript, which
 * loads a script the server lacks without the NOSCRIPT error GLIDE would log (a warning on the
 * console) for a lone EVALSHA.
 */
export function glideSender(client: GlideClient): CommandSender {
  if (!isGlideCluster(client)) {
    // From the copy of GLIDE that made the client: its exec() reads its own Batch's commands.
    const Batch = libraryExport<GlideBatchClass>(client, 'Batch');
    if (!Batch || typeof client.exec !== 'function')
      throw new TypeError(
        "lockweave: the GLIDE client's Batch class was not found among the loaded modules (is GLIDE bundled?): " +
          'lockweave checks the pairing of its replies with one (docs/configuration.md); load @valkey/valkey-glide as a package',
      );
    return glidePipelineSender(client as GlidePipelining, Batch);
  }
  const command = (name: string, args: readonly (string | number)[]) => [name.toUpperCase(), ...args.map(String)];
  const send: CommandSender['send'] = (name, args) =>
    client.customCommand(command(name, args), { route: { type: 'primarySlotKey', key: routingKey(name, args) } });
  // From the copy of GLIDE that made the client: a script lives in its copy's native core.
  const Script = libraryExport<ScriptClass>(client, 'Script');
  if (!Script || typeof client.invokeScript !== 'function') return { send };
  const scripts = new Map<string, object>();
  return {
    send,
    script: (source, sha1, keys, args) => {
      let script = scripts.get(sha1);
      if (!script) scripts.set(sha1, (script = new Script(source)));
      return client.invokeScript!(script, { keys: [...keys], args: args.map(String) });
    },
  };
}

type ScriptClass = new (source: string) => object;

/**
 * The subscriber: a second client of the same class and options as the caller's (GLIDE has no
 * duplicate()), with a callback for messages, subscribing to each channel as it is listened to
 * (GLIDE 2's dynamic SUBSCRIBE; on a cluster SSUBSCRIBE, whose shard channels GLIDE follows when
 * a slot moves). The caller's own subscriptions and callback are not copied. It never keeps a
 * process alive (below).
 */
export function glideSubscriber(client: GlideClient): OpenSubscriber {
  const cluster = isGlideCluster(client);
  return (onMessage, onGone) => {
    // Without the caller's addresses GLIDE would connect to its default, 127.0.0.1:6379: a
    // subscriber on another server. Then none is opened, and waiters wake at their scheduled attempts.
    const opened = client.config?.addresses?.length
      ? createSubscriber(client, onMessage)
      : Promise.reject(
          new Error("lockweave: the GLIDE client's options (its addresses) cannot be read: no release notices"),
        );
    opened.then(
      // GLIDE keeps its socket to its core ref'd for the client's life: a process whose work is
      // done would wait for close(). The subscriber's is unref'd; a caller that waits for a notice
      // keeps the process up by its own timers.
      (subscriber) => (subscriber as { socket?: { unref?(): void } }).socket?.unref?.(),
      () => onGone(),
    );
    return {
      subscribe: (channel) =>
        opened.then((subscriber) =>
          cluster
            ? subscriber.ssubscribe!([channel], COMMAND_TIMEOUT_MS)
            : subscriber.subscribe([channel], COMMAND_TIMEOUT_MS),
        ),
      unsubscribe: (channel) =>
        opened.then((subscriber) =>
          cluster
            ? subscriber.sunsubscribe!([channel], COMMAND_TIMEOUT_MS)
            : subscriber.unsubscribe([channel], COMMAND_TIMEOUT_MS),
        ),
      close: () =>
        opened.then(
          (subscriber) => subscriber.close(),
          () => undefined,
        ),
    };
  };
}

/** A second client of the caller's class and options, with a callback of the store's and no subscriptions yet. */
function createSubscriber(client: GlideClient, onMessage: (channel: string, message: string) => void) {
  return client.constructor.createClient({
    ...client.config,
    pubsubSubscriptions: {
      channelsAndPatterns: {},
      callback: (message: { channel: unknown; message: unknown }) =>
        onMessage(String(message.channel), String(message.message)),
    },
  });
}
