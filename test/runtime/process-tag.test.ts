// A token the runtime makes names its process as the release script reads it (store/process-tag.ts,
// HEARD_AT in store/release-channel.ts): the TypeScript that makes tokens and the Lua that routes
// passes must agree. Were they to drift, every pass would go to the key's own channel, which every
// waiting process also hears: locking would go on, and no other test would fail — only the wake-ups
// the per-process channels save would come back.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { newToken } from '../../runtime/lock/token';
import { processTag } from '../../runtime/store/process-tag';
import { HEARD_AT, releaseChannels } from '../../runtime/store/release-channel';
import { useRedis } from '../helpers/redis-fixture';

const fixture = useRedis(test);

const heardAt = async (channel: string, token: string) =>
  (await fixture.redis.eval(`${HEARD_AT}\nreturn heard_at(ARGV[1], ARGV[2])`, 0, channel, token)) as string;

test("the runtime's tokens are UUIDs whose first group is this process's tag, and the release script reads it", async (t) => {
  const tokens = [newToken(), newToken(), newToken()];
  for (const token of tokens) {
    t.regex(token, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a version-8 UUID');
    t.is(token.slice(0, 8), processTag());
  }
  t.is(new Set(tokens).size, tokens.length, 'each its own');
  for (const sharded of [false, true]) {
    const channels = releaseChannels('lockweave:released:', sharded);
    const key = 'LOCK_tag_1';
    t.is(await heardAt(channels.of(key), tokens[0]!), channels.ofThisProcess(key), 'the channel this process hears');
    t.is(await heardAt(channels.of(key), randomUUID()), channels.of(key), "an older runtime's v4 token: the key's own");
  }
});
