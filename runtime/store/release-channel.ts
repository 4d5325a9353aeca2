// Where a release is announced, and with which command.
//
// On one Redis (or Sentinel) the release script PUBLISHes on `<prefix><key>`. On Redis Cluster a
// PUBLISH is broadcast over the cluster bus to every node, whoever listens; a sharded SPUBLISH
// (Redis 7) goes only to the key's shard — its primary and replicas — and its subscribers listen
// there with SSUBSCRIBE. A shard channel must hash to the slot of the key the script runs on, so
// it is named after the key's hash tag, or with the whole key as its tag (sameSlotBase). Channels
// are not keys, so they need none of the braces that keep a key's own keys out of every lock key's
// reach (waiting-line.ts), and keep the names they had.
//
// Who hears what. A process that waits for a key listens on two of its channels: the key's own,
// and the key's for this process, `<key's channel>{<process tag>}` (process-tag.ts). A pass names
// its waiter, and goes to the channel of that waiter's process, and to that of the process of the
// next in line, who watches the claim (lock/waiters.ts): not to every process that waits, which
// each woke for every pass. The key's own channel carries what every process must hear: a key
// freed (Redlock's releases, whose waiters stand in no line; an operator's forced unlock), and a
// pass to a token that names no process — an older lockweave's, whose processes listen there only;
// and an older lockweave's passes come there too. The braces keep a process's channel apart from
// every key's own (no businessFlag or key value holds one), and on Cluster the first pair, the
// key's, still names the slot.
import { processTag } from './process-tag';
import { sameSlotBase } from './waiting-line';

export interface ReleaseChannels {
  /** The command the release script announces with. */
  readonly publish: 'publish' | 'spublish';
  /** The channel of `key`'s releases, every process's. */
  of(key: string): string;
  /** The channel of `key`'s notices for this process alone. */
  ofThisProcess(key: string): string;
}

export function releaseChannels(prefix: string, sharded: boolean): ReleaseChannels {
  // `{key}:lockweave:released` for the default prefix: the key's slot, whatever the prefix holds.
  const suffix = prefix.replace(/:+$/, '');
  const of = sharded ? (key: string) => `${sameSlotBase(key)}:${suffix}` : (key: string) => prefix + key;
  return {
    publish: sharded ? 'spublish' : 'publish',
    of,
    ofThisProcess: (key) => `${of(key)}{${processTag()}}`,
  };
}

/**
 * Lua: the channel a notice for `token`'s waiter goes to, given the key's channel — the channel of
 * the key and the token's process (ofThisProcess, there), or the key's own for a token that names none.
 */
export const HEARD_AT = `
local function heard_at(channel, token)
  local tag = string.match(token, '^(%x%x%x%x%x%x%x%x)%-%x%x%x%x%-8')
  if tag then return channel .. '{' .. tag .. '}' end
  return channel
end
`;
