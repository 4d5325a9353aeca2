// The Redis store on a Valkey GLIDE client or cluster client the user created (@valkey/valkey-glide
// 2.x): the verbs are scripted-lock-store.ts's, with the same scripts, keys and release channels
// as on ioredis and node-redis. The client stays the user's: close() closes only the subscriber
// the store opened beside it.
import {
  assertCheckableGlideClient,
  glideSender,
  glideSubscriber,
  isGlideClient,
  isGlideCluster,
  type GlideClient,
} from './glide-client';
import { RedisHealth } from './redis-health';
import { RedisNotices } from './redis-notices';
import { releaseChannels } from './release-channel';
import { DEFAULT_RELEASE_CHANNEL, ScriptedLockStore } from './scripted-lock-store';

export interface GlideStoreOptions {
  /** The prefix of release channels (channel = prefix + key). All processes sharing locks must agree. */
  channel?: string;
}

export class GlideLockStore extends ScriptedLockStore {
  constructor(
    readonly client: GlideClient,
    options: GlideStoreOptions = {},
  ) {
    assertOpenGlideClient(client);
    const cluster = isGlideCluster(client);
    const channels = releaseChannels(options.channel ?? DEFAULT_RELEASE_CHANNEL, cluster);
    const notices: RedisNotices = new RedisNotices(glideSubscriber(client), channels);
    super({
      channels,
      cluster,
      notices,
      sender: glideSender(client),
      // Never owned: a client the user created is the user's to close.
      health: new RedisHealth(client, false, () => void notices.close()),
    });
  }
}

/**
 * A closed GLIDE client fails every command, and one whose replies could not be checked is refused:
 * said where it is given to configure(), not at the first lock.
 */
export function assertOpenGlideClient(client: unknown): asserts client is GlideClient {
  if (!isGlideClient(client))
    throw new TypeError(
      'lockweave: not a Valkey GLIDE client (GlideClient or GlideClusterClient from @valkey/valkey-glide)',
    );
  if (client.isClosed === true)
    throw new TypeError('lockweave: the GLIDE client is closed: pass an open one to configure({ redis })');
  assertCheckableGlideClient(client);
}
