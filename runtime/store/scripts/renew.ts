// renew: the watchdog's compare-and-PEXPIRE. And regrant: the same as a Redlock server makes it.
import type { Regranted } from '../lock-store';
import { luaScript } from './lua-script';

export interface RenewCall {
  readonly token: string;
  readonly leaseMs: number;
}

/** True when the key held `token` and was extended; false when it is not ours. */
export const RENEW = luaScript<RenewCall, boolean>({
  source: `
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`,
  keys: (key) => [key],
  args: (_key, { token, leaseMs }) => [token, leaseMs],
  reply: (raw) => raw === 1,
});

/** The re-grant script's replies, in its order. */
const REGRANTED: readonly Regranted[] = ['not-ours', 'renewed', 'regranted'];

/**
 * A Redlock server's renewal (redlock-store.ts). Where the key holds our token, extends it
 * (renewed); where it is absent — the server restarted empty, or lost it in a failover — sets it
 * again with SET NX PX (regranted); where it holds another's token, touches nothing (not-ours). On
 * one server a re-grant would hide a loss; on Redlock the majority decides whether the lease still
 * stands, and a re-grant keeps a restarted server from leaving it short.
 */
export const REGRANT = luaScript<RenewCall, Regranted>({
  source: `
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
if not holder and redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 2 end
return 0
`,
  keys: (key) => [key],
  args: (_key, { token, leaseMs }) => [token, leaseMs],
  reply: (raw) => REGRANTED[raw as number] ?? 'not-ours',
});
