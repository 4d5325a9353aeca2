// The channels a key's notices go to, as a test outside the runtime sees them
// (runtime/store/release-channel.ts): a pass to the channel of the key and its waiter's process,
// `<prefix><key>{<process tag>}`; a key freed, to the key's own channel, which every waiting process
// hears too. A test cannot know the tag of the runtime copy it checks (the built package's, not the
// sources'), so it asks Redis which of the key's process channels are subscribed.
import type { Redis } from 'ioredis';
import { DEFAULT_RELEASE_CHANNEL } from '../../runtime/store/scripted-lock-store';

const globEscaped = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/** The process channels of `key` somebody listens on now (one a listening process). */
export async function heardChannels(redis: Redis, key: string): Promise<string[]> {
  return (await redis.pubsub('CHANNELS', `${globEscaped(DEFAULT_RELEASE_CHANNEL + key)}{*}`)) as string[];
}

/** The channel of `key` and the process whose token is `token` (the tag is its first 8 characters). */
export const heardAt = (key: string, token: string) => `${DEFAULT_RELEASE_CHANNEL}${key}{${token.slice(0, 8)}}`;
