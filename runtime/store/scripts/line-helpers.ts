// Lua shared by the scripts that read a key's line of waiters or count its fencing tokens.
//
// The line of waiters (see waiting-line.ts for its keys) is what makes waiting fair across
// processes. A caller that has to wait takes a place in it, numbered in order of arrival; a
// release gives the key to the first waiter in line instead of freeing it (release.ts), so nobody
// can overtake a caller that came earlier — in its own process or in any other — except by the
// bounded cohort rule (lock/succession.ts).

// A new place is the server's clock in microseconds, or one more than the last place in line when
// that is later: so waiters are served in the order Redis saw them arrive, from every process alike
// (two arriving in the same microsecond too), and a place is past every place the key's line ever
// gave out — not only those in line now. That is what lets a waiter keep its place: one whose entry
// lapsed (a cut connection, a stalled event loop) comes back with the place it was given, and stands
// before every newcomer, even one that came while the line was empty (numbering from 1 in an empty
// line sent it behind). Scores are doubles, exact for whole µs since 1970 (< 2^53); the place is
// written as a whole number (Lua's tostring keeps 14 digits only). An entry lapses when its waiter
// has not come back in time: the waiter died, or gave up without a word. Lapse times are on Redis's
// clock, the one clock all share.
export const LINE_HELPERS = `
local function now_ms()
  local t = redis.call('time')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end
local function now_us()
  local t = redis.call('time')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function new_place(line)
  local place = now_us()
  local last = redis.call('zrange', line, -1, -1, 'WITHSCORES')[2]
  if last and tonumber(last) >= place then place = tonumber(last) + 1 end
  return string.format('%.0f', place)
end
local function leave(line, lapses, leases, token)
  redis.call('zrem', line, token)
  redis.call('zrem', lapses, token)
  redis.call('hdel', leases, token)
end
-- Drops waiters whose entries lapsed (at most 64 a call: a script must stay short).
local function drop_lapsed(line, lapses, leases, now)
  local gone = redis.call('zrangebyscore', lapses, '-inf', now, 'LIMIT', 0, 64)
  for _, token in ipairs(gone) do leave(line, lapses, leases, token) end
end
`;

// Fencing (the `fencing` option): every grant of a key to a caller that asked for a token also
// sets the key's counter (waiting-line.ts names it), in the same script, and returns the number.
// The counter has no TTL, so on one server the numbers of a key strictly increase. A failover is
// the hard case: a replica that missed a grant missed its increment too, and after a forced
// failover would give the next holder the stale holder's number again. So a number is also never
// below the server's clock in microseconds: the new primary's numbers are past the old one's as
// long as its clock is behind the old primary's by less than the time between the old primary's
// last grant and the new one's first (the failover takes seconds; NTP keeps clocks milliseconds
// apart). A clock set back further, on one server or across a failover, breaks that promise.
export const FENCE_HELPERS = `
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

/** A Lua flag: '1' for true, '' for false. */
export function flag(value: boolean | undefined): string {
  return value ? '1' : '';
}
