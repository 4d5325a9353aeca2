// tryAcquire with a fencing token (a plain tryAcquire is SET key token NX PX lease, no script).
import type { Grant } from '../lock-store';
import { fenceCounterOf } from '../waiting-line';
import { FENCE_HELPERS } from './line-helpers';
import { luaScript } from './lua-script';

export interface FencedAcquireCall {
  readonly token: string;
  readonly leaseMs: number;
}

/** The key's next fencing token when the key was free and now holds `token`; else false. */
export const FENCED_ACQUIRE = luaScript<FencedAcquireCall, Grant>({
  source: `${FENCE_HELPERS}
if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return next_fence('1', KEYS[2]) end
return 0
`,
  keys: (key) => [key, fenceCounterOf(key)],
  args: (_key, { token, leaseMs }) => [token, leaseMs],
  reply: (raw) => (raw === 0 ? false : (raw as number)),
});
