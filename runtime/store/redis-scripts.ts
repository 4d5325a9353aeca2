// The Lua scripts of the Redis store, and one typed way to run them.
//
// Each compares the stored token before it touches the key: Redis runs a script atomically, so
// no other client can take the key between the check and the write. That is what guarantees a
// caller never releases or extends a lock it does not hold.
//
// The line of waiters (see waiting-line.ts for its keys) is what makes waiting fair across
// processes. A caller that has to wait takes a place in it, numbered in order of arrival; a
// release gives the key to the first waiter in line instead of freeing it, so nobody can
// overtake a caller that came earlier — in its own process or in any other.
import { createHash } from 'node:crypto';
import type { CommandSender } from './command-batch';

export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

function script(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

// Shared by the scripts that read the line. A place is one more than the last place in line, so
// waiters are served in the order Redis saw them arrive, from every process alike (two arriving in
// the same millisecond too). An entry lapses when its waiter has not come back in time: the waiter
// died, or gave up without a word. Lapse times are on Redis's clock, the one clock all share.
const LINE_HELPERS = `
local function now_ms()
  local t = redis.call('time')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end
-- Drops waiters whose entries lapsed (at most 64 a call: a script must stay short).
local function drop_lapsed(line, lapses, now)
  local gone = redis.call('zrangebyscore', lapses, '-inf', now, 'LIMIT', 0, 64)
  for _, token in ipairs(gone) do
    redis.call('zrem', line, token)
    redis.call('zrem', lapses, token)
  end
end
local function leave(line, lapses, token)
  redis.call('zrem', line, token)
  redis.call('zrem', lapses, token)
end
`;

// Fencing (the `fencing` option): every grant of a key to a caller that asked for a token also
// sets the key's counter (waiting-line.ts names it), in the same script, and returns the number.
// The counter has no TTL, so on one server the numbers of a key strictly increase. A failover is
// the hard case: a replica that missed a grant missed its increment too, and after a forced
// takeover would give the next holder the stale holder's number again. So a number is also never
// below the server's clock in microseconds: the new primary's numbers are past the old one's as
// long as its clock is behind the old primary's by less than the time between the old primary's
// last grant and the new one's first (the failover takes seconds; NTP keeps clocks milliseconds
// apart). A clock set back further, on one server or across a failover, breaks that promise.
const FENCE_HELPERS = `
local function next_fence(fenced, counter)
  if fenced ~= '1' then return nil end
  local t = redis.call('time')
  local now = t[1] .. string.format('%06d', t[2])
  local last = redis.call('get', counter)
  if last and tonumber(last) >= tonumber(now) then return redis.call('incr', counter) end
  redis.call('set', counter, now)
  return tonumber(now)
end
`;

/**
 * The first attempt of a caller that asked for a fencing token (others send a plain SET NX PX).
 * KEYS[1] key, KEYS[2] its fencing counter; ARGV[1] token, ARGV[2] lease ms. Returns the key's next
 * fencing token when the key was free and now holds `token`, else 0.
 */
export const FENCED_ACQUIRE_SCRIPT = script(`${FENCE_HELPERS}
if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return next_fence('1', KEYS[2]) end
return 0
`);

/**
 * KEYS[1] key, KEYS[2] line, KEYS[3] lapses, KEYS[4] the fencing counter (only when ARGV[5] is
 * '1'); ARGV[1] token, ARGV[2] lease ms, ARGV[3] place kept
 * from an earlier attempt ('' the first time), ARGV[4] how long the place lasts without another
 * attempt (ms), ARGV[5] '1' when the caller wants a fencing token. Returns {1, place} when the key
 * is now ours ({1, place, fencing token} when wanted), {0, place} when not yet.
 *
 * The key is ours when it already holds our token (a release gave it to us, or an earlier attempt
 * of ours that timed out had set it), or when it is free and we are first in line. Either way we
 * leave the line. Otherwise we keep our place — the same place after a lapse, so a slow waiter is
 * not sent to the back — and wait.
 */
export const ACQUIRE_IN_TURN_SCRIPT = script(`${LINE_HELPERS}${FENCE_HELPERS}
local key, line, lapses, token = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local holder = redis.call('get', key)
if holder == token then
  redis.call('pexpire', key, ARGV[2])
  leave(line, lapses, token)
  return {1, ARGV[3], next_fence(ARGV[5], KEYS[4])}
end
local now = now_ms()
local place = redis.call('zscore', line, token)
if not place then
  place = ARGV[3]
  if place == '' then
    local last = redis.call('zrange', line, -1, -1, 'WITHSCORES')[2]
    place = last and tostring(tonumber(last) + 1) or '1'
  end
  redis.call('zadd', line, place, token)
end
local lasts = tonumber(ARGV[4])
redis.call('zadd', lapses, now + lasts, token)
if redis.call('pttl', line) < lasts then
  redis.call('pexpire', line, lasts)
  redis.call('pexpire', lapses, lasts)
end
if holder then return {0, place} end
drop_lapsed(line, lapses, now)
if redis.call('zrange', line, 0, 0)[1] == token then
  redis.call('set', key, token, 'PX', ARGV[2])
  leave(line, lapses, token)
  return {1, place, next_fence(ARGV[5], KEYS[4])}
end
return {0, place}
`);

/**
 * KEYS[1] key, KEYS[2] line, KEYS[3] lapses, KEYS[4] the fencing counter (only when ARGV[9] is
 * '1'); ARGV[1] token, ARGV[2] the key's release channel, ARGV[3] how
 * long a waiter in another process has to claim the key (ms), ARGV[4] a waiter of the caller's own
 * process ('' for none), ARGV[5] its lease (ms), ARGV[6] '1' when the caller may stand in the line
 * (a waiter giving up: it leaves the line this way), ARGV[7] '1' when that waiter may go ahead of
 * the line (see Waiters.reserveSuccessor: a few times in a row at most), ARGV[8] the command that
 * announces: 'publish', or 'spublish' on Redis Cluster (release-channel.ts), ARGV[9] '1' when
 * that waiter wants a fencing token; ARGV[10] and on, waiters that leave the line first (they took
 * the caller's grant over, and their TAKE_OVER_SCRIPT may not have run yet).
 *
 * If the key holds `token`, passes it on:
 * - to the caller's own waiter, when it stands in line and may go ahead: with its full lease, no
 *   notice (the caller wakes it);
 * - else to the first live waiter in line: when that is the caller's own waiter, with its full lease
 *   and no notice (the caller wakes it); else with a short claim, announced by PUBLISHing the
 *   waiter's token, on which its process confirms the key with an attempt of its own. A claim
 *   nobody takes up (the waiter's process died) frees the key when it ends.
 * - to nobody when the line is empty: the key is deleted and an empty notice PUBLISHed.
 * Returns 0 when the key was not ours, 1 when freed, 2 when passed to ARGV[4] ({2, fencing token}
 * when it wants one), 3 when passed to a waiter who must confirm (its confirming attempt fences).
 */
export const RELEASE_SCRIPT = script(`${LINE_HELPERS}${FENCE_HELPERS}
local key, line, lapses, token = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
if ARGV[6] == '1' then leave(line, lapses, token) end
for i = 10, #ARGV do leave(line, lapses, ARGV[i]) end
if redis.call('get', key) ~= token then return 0 end
-- The common case, nobody waiting, stays as cheap as a plain compare-and-delete.
if redis.call('exists', line) == 0 then
  redis.call('del', key)
  redis.call(ARGV[8], ARGV[2], '')
  return 1
end
local now = now_ms()
drop_lapsed(line, lapses, now)
local first = redis.call('zrange', line, 0, 0)[1]
if not first then
  redis.call('del', key)
  redis.call(ARGV[8], ARGV[2], '')
  return 1
end
if ARGV[7] == '1' and first ~= ARGV[4] and redis.call('zscore', line, ARGV[4]) then first = ARGV[4] end
leave(line, lapses, first)
if first == ARGV[4] then
  redis.call('set', key, first, 'PX', ARGV[5])
  if ARGV[9] == '1' then return {2, next_fence('1', KEYS[4])} end
  return 2
end
redis.call('set', key, first, 'PX', ARGV[3])
redis.call(ARGV[8], ARGV[2], first)
return 3
`);

/**
 * A waiter of the holder's process takes over the holder's grant (Lease.release): KEYS[1] key,
 * KEYS[2] line, KEYS[3] lapses; ARGV[1] the grant's token, ARGV[2] the waiter's lease ms, ARGV[3]
 * the waiter's own token, which leaves the line — it holds the key now, under the grant's token.
 * Returns 1 when extended, 0 when the key was no longer ours.
 */
export const TAKE_OVER_SCRIPT = script(`
redis.call('zrem', KEYS[2], ARGV[3])
redis.call('zrem', KEYS[3], ARGV[3])
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`);

/** KEYS[1] key, ARGV[1] token, ARGV[2] lease in ms. Returns 1 when extended, 0 when not ours. */
export const RENEW_SCRIPT = script(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`);

/**
 * A Redlock server's renewal (redlock-store.ts): KEYS[1] key, ARGV[1] token, ARGV[2] lease in ms.
 * Where the key holds our token, extends it (1); where it is absent — the server restarted empty,
 * or lost it in a failover — sets it again with SET NX PX (2); where it holds another's token,
 * touches nothing (0). On one server a re-grant would hide a loss; on Redlock the majority decides
 * whether the lease still stands, and a re-grant keeps a restarted server from leaving it short.
 */
export const REGRANT_SCRIPT = script(`
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
if not holder and redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 2 end
return 0
`);

/**
 * EVALSHA, falling back to EVAL when the server has not seen the script (first use, a
 * restart, a failover, SCRIPT FLUSH). EVAL also loads it, so the next call hits the cache.
 * Not async: it runs on every release, and each async frame is another promise for Node's
 * async hooks to visit.
 */
export function runScript(
  sender: CommandSender,
  { source, sha1 }: RedisScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  return sender.send('evalsha', [sha1, keys.length, ...keys, ...args]).catch((error: unknown) => {
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return sender.send('eval', [source, keys.length, ...keys, ...args]);
    throw error;
  });
}
