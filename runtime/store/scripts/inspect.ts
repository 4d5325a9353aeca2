// inspect: what a key's lock looks like now, read in one atomic step (for inspect() and the CLI's
// `locks`). Reads only: it changes no key, not even the line's lapsed places.
import type { KeyState } from '../lock-store';
import { fenceCounterOf, waitingLineOf } from '../waiting-line';
import { LINE_HELPERS } from './line-helpers';
import { luaScript } from './lua-script';

/**
 * The key's remaining lease (PTTL: -2 when free), its waiters whose places have not lapsed (a
 * waiter whose process died stays in `line` until a release or an attempt drops it, so `line`'s
 * size would count it), and its fencing counter ('' when it has none).
 */
const SOURCE = `${LINE_HELPERS}
local ttl = redis.call('pttl', KEYS[1])
local waiters = redis.call('zcount', KEYS[3], '(' .. now_ms(), '+inf')
local fence = redis.call('get', KEYS[4])
return {ttl, waiters, fence or ''}
`;

export const INSPECT = luaScript<undefined, KeyState>({
  source: SOURCE,
  keys: (key) => {
    const { line, lapses } = waitingLineOf(key);
    return [key, line, lapses, fenceCounterOf(key)];
  },
  args: () => [],
  reply: (raw) => {
    const [ttl, waiters, fence] = raw as [number, number, string];
    return {
      held: ttl !== -2,
      // -1: a key without a TTL, which lockweave never sets (someone else wrote it): held for good.
      ttlMs: ttl >= 0 ? ttl : undefined,
      waiters,
      fence: fence === '' ? undefined : Number(fence),
    };
  },
});
