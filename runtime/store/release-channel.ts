// Where a release is announced, and with which command.
//
// On one Redis (or Sentinel) the release script PUBLISHes on `<prefix><key>`. On Redis Cluster a
// PUBLISH is broadcast over the cluster bus to every node, whoever listens; a sharded SPUBLISH
// (Redis 7) goes only to the key's shard — its primary and replicas — and its subscribers listen
// there with SSUBSCRIBE. A shard channel must hash to the slot of the key the script runs on, so
// it is named after the key's hash tag, or with the whole key as its tag (sameSlotBase). Channels
// are not keys, so they need none of the braces that keep a key's own keys out of every lock key's
// reach (waiting-line.ts), and keep the names they had.
import { sameSlotBase } from './waiting-line';

export interface ReleaseChannels {
  /** The command the release script announces with. */
  readonly publish: 'publish' | 'spublish';
  /** The channel of `key`'s releases. */
  of(key: string): string;
}

export function releaseChannels(prefix: string, sharded: boolean): ReleaseChannels {
  if (!sharded) return { publish: 'publish', of: (key) => prefix + key };
  // `{key}:lockweave:released` for the default prefix: the key's slot, whatever the prefix holds.
  const suffix = prefix.replace(/:+$/, '');
  return { publish: 'spublish', of: (key) => `${sameSlotBase(key)}:${suffix}` };
}
