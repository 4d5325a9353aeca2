// tryAcquireInTurn: an attempt by a caller that waits. It takes or keeps its place in the key's
// line, and takes the key when it is its turn.
import type { PlaceInLine } from '../lock-store';
import { claimMarkOf, fenceCounterOf, waitingLineOf } from '../waiting-line';
import { FENCE_HELPERS, LINE_HELPERS, flag } from './line-helpers';
import { luaScript } from './lua-script';

export interface InTurnCall {
  readonly waiter: PlaceInLine;
  /** A claim the waiter's process saw go unconfirmed (LockStore.tryAcquireInTurn), or ''. */
  readonly staleClaim: string;
}

/**
 * Returns {1, place} when the key is now ours ({1, place, fencing token} when wanted), {0, place}
 * when not yet.
 *
 * The key is ours when it already holds our token (a release passed or handed it to us, or an
 * earlier attempt of ours that timed out had set it), or when it is free and we are first in line.
 * Either way we leave the line, and a claim's mark goes: the key is a lease now. Otherwise we keep
 * our place — the same place after a lapse, so a slow waiter is not sent to the back — and wait;
 * taking it, we note our lease beside it, which a binding pass gives us the key for (release.ts).
 *
 * A key that holds the claim `stale_claim` names, still marked (its waiter has not confirmed it),
 * counts as free: the claim's waiter was passed the key and has not come for it while our process
 * watched (lock/waiters.ts), so the first in line takes it rather than wait out CLAIM_MS behind a
 * stalled or cut-off process. The mark is what makes this safe: the claim's waiter's confirming
 * attempt deletes it in the same script that makes the key its lease, so a key taken here never
 * had a body run on it.
 */
const SOURCE = `${LINE_HELPERS}${FENCE_HELPERS}
local key, line, lapses, leases, claim, counter = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local token, lease_ms, kept_place, place_lasts_ms, fenced = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local stale_claim = ARGV[6]
local holder = redis.call('get', key)
if holder == token then
  redis.call('pexpire', key, lease_ms)
  redis.call('del', claim)
  leave(line, lapses, leases, token)
  return {1, kept_place, next_fence(fenced, counter)}
end
local now = now_ms()
local place = redis.call('zscore', line, token)
local placed = not place
if placed then
  place = kept_place
  if place == '' then place = new_place(line) end
  redis.call('zadd', line, place, token)
  redis.call('hset', leases, token, lease_ms)
end
local lasts = tonumber(place_lasts_ms)
redis.call('zadd', lapses, now + lasts, token)
local line_lasts = redis.call('pttl', line)
if line_lasts < lasts then
  redis.call('pexpire', line, lasts)
  redis.call('pexpire', lapses, lasts)
  redis.call('pexpire', leases, lasts)
elseif placed and redis.call('pttl', leases) < 0 then
  -- A line an older lockweave made, which keeps no leases: the HSET above began the hash, without a TTL.
  redis.call('pexpire', leases, line_lasts)
end
if holder and (holder ~= stale_claim or redis.call('get', claim) ~= holder) then return {0, place} end
drop_lapsed(line, lapses, leases, now)
if redis.call('zrange', line, 0, 0)[1] == token then
  redis.call('set', key, token, 'PX', lease_ms)
  if holder then redis.call('del', claim) end
  leave(line, lapses, leases, token)
  return {1, place, next_fence(fenced, counter)}
end
return {0, place}
`;

/** True when the key now holds the waiter's token; sets the waiter's place (and fence) as the script says. */
export const ACQUIRE_IN_TURN = luaScript<InTurnCall, boolean>({
  source: SOURCE,
  // The fencing counter only for a waiter that wants a token: on Cluster every key must be named.
  keys: (key, { waiter }) => {
    const { line, lapses, leases } = waitingLineOf(key);
    const keys = [key, line, lapses, leases, claimMarkOf(key)];
    return waiter.fenced ? [...keys, fenceCounterOf(key)] : keys;
  },
  args: (_key, { waiter, staleClaim }) => [
    waiter.token,
    waiter.leaseMs,
    waiter.place ?? '',
    waiter.placeLastsMs,
    flag(waiter.fenced),
    staleClaim,
  ],
  reply: (raw, { waiter }) => {
    const [took, place, fence] = raw as [number, string, number | undefined];
    waiter.place = place;
    if (fence !== undefined) waiter.fence = fence;
    return took === 1;
  },
});
