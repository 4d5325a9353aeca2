// release and leave: the store's side of succession. lock/succession.ts decides what a release
// asks for (which waiter of this process is named successor, and whether it may go ahead of the
// line); this script, run atomically on the key's server, decides among the three outcomes a
// release can have — hand-over, pass, free — from that request and the key's line.
import { BINDING, BINDS_WITHIN_MS, CLAIM_MS, type Released, type SuccessionRequest } from '../lock-store';
import { HEARD_AT, type ReleaseChannels } from '../release-channel';
import { claimMarkOf, fenceCounterOf, waitingLineOf } from '../waiting-line';
import { FENCE_HELPERS, LINE_HELPERS, flag } from './line-helpers';
import { luaScript } from './lua-script';

export interface ReleaseCall {
  /** The releaser's token: nothing changes unless the key holds it. */
  readonly token: string;
  /** Where the key's releases are announced, and with which command (release-channel.ts). */
  readonly channels: ReleaseChannels;
  /** The releaser is a waiter giving up (LockStore.leave): it may stand in the line, and leaves it. */
  readonly leaving: boolean;
  readonly succession: SuccessionRequest | undefined;
}

/**
 * If the key holds `token`, gives it on:
 * - hand-over: to the releaser's own waiter (`successor`), when it stands in line and may go ahead
 *   (`goes_ahead`, a few times in a row at most: lock/succession.ts), or when it is first in line:
 *   with its full lease under its own token, no notice (the releaser wakes it);
 * - pass: else to the first live waiter in line, with a short claim (CLAIM_MS), announced by
 *   PUBLISHing the waiter's token to its process, which confirms the key with an attempt of its own
 *   (acquire-in-turn.ts), and to the process of the next in line (release-channel.ts). The claim's
 *   mark beside the key (waiting-line.ts) says the key is a claim until then: one left unconfirmed
 *   a while may be taken by the next in line, whose process watches it (lock/waiters.ts,
 *   acquire-in-turn.ts), and one nobody takes up (the waiter's process died) frees the key when it
 *   ends. A pass to a waiter that came a moment ago binds (lock-store.ts, BINDS_WITHIN_MS): the key
 *   is that waiter's for its own lease, as a hand-over makes it, unmarked; the notice, to its process
 *   alone, says so, and the waiter's body starts on it;
 * - free: to nobody when the line is empty: the key is deleted — unless a successor is named: then
 *   nobody else waits, and it is handed over to it, in line or not (a waiter that came during its
 *   process's turn takes no place: lock/waiters.ts, turnRunsHere). Nothing is PUBLISHed unless the
 *   release asks (`announce_free`): an empty line means nobody sleeps on the key. A caller whose
 *   first SET finds the key held takes its place in line before it sleeps (acquire-in-turn.ts), and
 *   a waiter of the releaser's own process without one is named successor. The only sleepers
 *   without a place are waiters whose place lapsed or whose attempt to take one failed — their
 *   process stalled past the place's grace, or Redis was unreachable — and those look at their next
 *   scheduled attempt or when the connection is back (lock/acquire.ts), which an empty notice only
 *   ran ahead of. Not publishing took 5–9% off Redis's CPU for an uncontended lock (a SET and
 *   its release: bench/history.md), and on a Cluster or with replicas a notice is replicated too.
 *   Redlock asks for it: its waiters take no place in any line (redlock-store.ts).
 * First, the waiters in `leavingLine` (they took the releaser's grant over, and their take-over
 * script may not have run yet) and, for a waiter giving up, the releaser leave the line; a waiter
 * giving up a claim passed to it takes its mark away with it.
 * Returns 0 when the key was not ours, 1 when freed ({1, subscribers the announcement reached} when
 * announced), 2 when handed over ({2, fencing token} when the successor wants one), 3 when passed
 * (the confirming attempt fences).
 */
const SOURCE = `local key, line, lapses, leases, claim, counter = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local token = ARGV[1]
-- A release that asks nothing (nobody named, nobody leaving) sends only its token, channel and
-- publish command. Of a key nobody waits for, the common case, it is a plain compare-and-delete,
-- done before the helpers below are defined: each is a closure made on every call.
local asks_nothing = #ARGV == 3
if asks_nothing then
  if redis.call('get', key) ~= token then return 0 end
  if redis.call('exists', line) == 0 then
    redis.call('del', key)
    return 1
  end
end
${LINE_HELPERS}${FENCE_HELPERS}${HEARD_AT}
local channel, publish = ARGV[2], ARGV[3]
-- The claim's token, to the process of whoever is first in line now, which watches the claim
-- (lock/waiters.ts) — unless \`heard\` is that process's channel: it was told already.
local function to_watcher(claimed, heard)
  local watcher = redis.call('zrange', line, 0, 0)[1]
  if not watcher then return end
  local at = heard_at(channel, watcher)
  if at ~= heard then redis.call(publish, at, claimed) end
end
local leaving, successor, successor_lease_ms = ARGV[4] or '', ARGV[5] or '', ARGV[6] or '0'
local goes_ahead, successor_fenced, announce_free = ARGV[7] or '', ARGV[8] or '', ARGV[9] or ''
local claim_ms = '${CLAIM_MS}'
if leaving == '1' then
  -- The first in line gives up: the next watches a claim in its stead.
  local watched = redis.call('zrange', line, 0, 0)[1] == token and redis.call('get', claim)
  leave(line, lapses, leases, token)
  if watched then to_watcher(watched) end
end
for i = 10, #ARGV do leave(line, lapses, leases, ARGV[i]) end
-- Asking nothing, the key was found ours above, and nothing since could change that.
if not asks_nothing and redis.call('get', key) ~= token then return 0 end
if leaving == '1' then redis.call('del', claim) end
local first, first_place
if redis.call('exists', line) == 1 then
  drop_lapsed(line, lapses, leases, now_ms())
  local head = redis.call('zrange', line, 0, 0, 'WITHSCORES')
  first, first_place = head[1], head[2]
end
if not first and successor == '' then
  redis.call('del', key)
  if announce_free == '1' then return {1, redis.call(publish, channel, '')} end
  return 1
end
-- Nobody in line: the successor, in line or not, is the only one waiting.
first = first or successor
if goes_ahead == '1' and first ~= successor and redis.call('zscore', line, successor) then first = successor end
if first == successor then
  leave(line, lapses, leases, first)
  redis.call('set', key, first, 'PX', successor_lease_ms)
  if successor_fenced == '1' then return {2, next_fence('1', counter)} end
  return 2
end
local heard = heard_at(channel, first)
-- Binding (lock-store.ts, BINDS_WITHIN_MS): to a waiter that names its process (an older lockweave's
-- could not read the notice), whose place, given at its first attempt, is a moment old, and whose
-- lease that attempt noted — and whose process hears the notice: a PUBLISH counts the subscribers it
-- reached, and a process that died, its connections closed, is none. Then the key is the waiter's for
-- that lease, unmarked, and nobody else is told. (The notice is written out after the script, with the
-- key set.) Else a claim, as below: told to nobody, should the waiter's process not hear it.
local lease_ms
if heard ~= channel and now_us() - tonumber(first_place) < ${BINDS_WITHIN_MS * 1000} then
  lease_ms = redis.call('hget', leases, first)
end
leave(line, lapses, leases, first)
if not lease_ms then
  redis.call(publish, heard, first)
elseif redis.call(publish, heard, '${BINDING}' .. first) > 0 then
  redis.call('set', key, first, 'PX', lease_ms)
  return 3
end
redis.call('set', key, first, 'PX', claim_ms)
redis.call('set', claim, first, 'PX', claim_ms)
to_watcher(first, heard)
return 3
`;

/** The script's numeric replies, in its order. */
const RELEASED: readonly Released[] = ['not-ours', 'freed', 'handed', 'passed'];

const NONE: readonly string[] = [];

export const RELEASE = luaScript<ReleaseCall, Released>({
  source: SOURCE,
  // The fencing counter only for a successor that wants a token: on Cluster every key must be named.
  keys: (key, { succession }) => {
    const { line, lapses, leases } = waitingLineOf(key);
    const keys = [key, line, lapses, leases, claimMarkOf(key)];
    return succession?.successor?.fenced ? [...keys, fenceCounterOf(key)] : keys;
  },
  // The release of a holder nobody waits for in its process — the uncontended lock's — asks nothing,
  // and sends its token, channel and publish command alone: the script reads the request's fields
  // left off as empty. Every argument is built and written by the client on each release: an
  // ioredis EVALSHA of a full release's sixteen costs 1.15 µs to build and serialize, of these nine
  // 0.79 µs, and an uncontended section ~0.5 µs of client CPU less (bench/history.md).
  args: (key, { token, channels, leaving, succession }) => {
    const always = [token, channels.of(key), channels.publish];
    if (!leaving && !succession) return always;
    const successor = succession?.successor;
    return [
      ...always,
      flag(leaving),
      successor?.token ?? '',
      successor?.leaseMs ?? 0,
      flag(succession?.goesAhead),
      flag(successor?.fenced),
      flag(succession?.announceFree),
      ...(succession?.leavingLine ?? NONE),
    ];
  },
  reply: (raw, { succession }) => {
    if (typeof raw === 'number') return RELEASED[raw];
    const [released, value] = raw as [number, number];
    // {1, subscribers}: freed and announced, heard by that many.
    if (released === 1) {
      succession?.onAnnounced?.(value);
      return 'freed';
    }
    // {2, fencing token}: handed over to a successor that wanted one.
    succession!.successor!.fence = value;
    return 'handed';
  },
});
