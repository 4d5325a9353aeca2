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
import type { OpenSubscriber } from './redis-notices';
import { COMMAND_TIMEOUT_MS } from './command-batch';
import { glideClusterSender, type GlideClusterCommands } from './glide-cluster-sender';
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
 * A tick's commands go as one pipeline: on a standalone client checked by a PING at its end
 * (glide-pipeline.ts), on a cluster as scripts whose replies each echo a nonce (glide-cluster-sender.ts),
 * which GLIDE splits per node, each script to the primary of its first key's slot — the key and its
 * line of waiters share that slot (waiting-line.ts), so a script runs where all its keys live.
 * Scripts go as EVALSHA (a NOSCRIPT in a pipeline, read in its place, is not logged; the EVAL that
 * follows loads the script). The pipeline is a Batch of the GLIDE copy that made the client (its
 * exec() reads its own Batch's commands): should it not be found, the client is refused.
 */
export function glideSender(client: GlideClient): CommandSender {
  const Batch = batchClass(client);
  return isGlideCluster(client)
    ? glideClusterSender(client as GlideClusterCommands, Batch)
    : glidePipelineSender(client as GlidePipelining, Batch);
}

/** Refuses, with a TypeError that says why, a client whose replies could not be checked (above). */
export function assertCheckableGlideClient(client: GlideClient): void {
  batchClass(client);
}

/** The Batch (a cluster's ClusterBatch) of the GLIDE copy that made `client`. */
function batchClass(client: GlideClient): GlideBatchClass {
  const name = isGlideCluster(client) ? 'ClusterBatch' : 'Batch';
  const Batch = libraryExport<GlideBatchClass>(client, name);
  if (!Batch || typeof client.exec !== 'function')
    throw new TypeError(
      `lockweave: the GLIDE client's ${name} class was not found among the loaded modules (is GLIDE bundled?): ` +
        'lockweave checks the pairing of its replies with one (docs/configuration.md); load @valkey/valkey-glide as a package',
    );
  return Batch;
}

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
