// takeOver: a waiter of the holder's process takes over the holder's grant (lock/succession.ts
// decides when; lock/lease.ts, Lease.takeOver, sends this).
import { waitingLineOf } from '../waiting-line';
import { luaScript } from './lua-script';

export interface TakeOverCall {
  /** The grant's token, which the key keeps. */
  readonly token: string;
  /** The new holder's lease. */
  readonly leaseMs: number;
  /** The new holder's own token: it leaves the line — it holds the key now, under the grant's token. */
  readonly waiterToken: string;
}

/** True when the key still held the grant's token and was extended; false when no longer ours. */
export const TAKE_OVER = luaScript<TakeOverCall, boolean>({
  source: `
redis.call('zrem', KEYS[2], ARGV[3])
redis.call('zrem', KEYS[3], ARGV[3])
redis.call('hdel', KEYS[4], ARGV[3])
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`,
  keys: (key) => {
    const { line, lapses, leases } = waitingLineOf(key);
    return [key, line, lapses, leases];
  },
  args: (_key, { token, leaseMs, waiterToken }) => [token, leaseMs, waiterToken],
  reply: (raw) => raw === 1,
});
