// forceUnlock: an operator's removal of a stuck lock (the CLI's `unlock --force`), whoever holds it.
// The one script that deletes a key without its token: never called by the lock itself. It then
// announces the key free, as a release that finds nobody waiting does, so the key's waiters —
// in every process — make their attempt at once, first in line first (acquire-in-turn.ts).
import type { ReleaseChannels } from '../release-channel';
import { claimMarkOf } from '../waiting-line';
import { luaScript } from './lua-script';

export const FORCE_UNLOCK = luaScript<ReleaseChannels, boolean>({
  source: `
local removed = redis.call('del', KEYS[1])
redis.call('del', KEYS[2])
redis.call(ARGV[2], ARGV[1], '')
return removed
`,
  // The key and a claim's mark: a claim removed is no claim for the next in line to take.
  keys: (key) => [key, claimMarkOf(key)],
  args: (key, channels) => [channels.of(key), channels.publish],
  reply: (raw) => raw === 1,
});
