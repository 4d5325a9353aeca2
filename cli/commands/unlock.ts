// `lockweave unlock <key> --force`: removes a stuck lock, whoever holds it, and tells its waiters
// the key is free (they try at once, first in line first). Without --force it only says what it
// would remove: deleting a lock someone holds lets a second caller in beside the first, so it is
// for a holder that is known gone (a process killed with a long lockTime, a key another program wrote).
import { printable } from '../../runtime/base/printable';
import { isOwnKey } from '../../runtime/store/waiting-line';
import { CliError, UsageError } from '../cli-error';
import type { Command, ParsedArgs } from '../command';
import { openTarget, REDIS_FLAGS, talkingTo } from '../redis-target';
import { printArgument } from '../without-credentials';

export const unlock: Command = {
  name: 'unlock',
  summary: 'remove a stuck lock and wake its waiters (only with --force)',
  synopsis: 'lockweave unlock <key> --force [--redis <url>] [--cluster]',
  flags: [...REDIS_FLAGS, { names: ['--force'], help: 'remove the key; without it, only say what would be removed' }],
  operands: { min: 1, max: 1, name: '<key>' },
  details: [
    'The key is the Redis key as `lockweave locks` prints it (LOCK_payOrder_Test001). The removal does',
    'not ask the holder: a body still running goes on without its lock, and its release later finds the',
    'key not its own (logged as lost). Use it for a holder that is gone.',
    '',
    'Exit: 0 removed (or, with --force, nothing was held); 1 not removed (no --force, or the Redis',
    'cannot be reached); 2 bad command line.',
    '',
    'Examples:',
    '  lockweave unlock LOCK_payOrder_Test001            # says what it would remove',
    '  lockweave unlock LOCK_payOrder_Test001 --force',
  ].join('\n'),
  run: runUnlock,
};

async function runUnlock(args: ParsedArgs): Promise<number> {
  const key = args.operands[0];
  // A Redis URL in the key's place is a forgotten --redis (and the key, if any, a stray argument):
  // printed as a key it would put the URL's password on stdout.
  if (/^rediss?:\/\//i.test(key))
    throw new UsageError(
      `the key is ${printArgument(key)}, not a lock key; name the server with --redis <url>`,
      'unlock',
    );
  const shown = printable(key);
  if (isOwnKey(key))
    throw new CliError(`${shown} is one of lockweave's own keys (a line of waiters or a fencing counter), not a lock`);
  const target = openTarget(args.flags);
  return talkingTo(target, async () => {
    const before = await target.store.inspect(key);
    const waiters = `${before.waiters} waiter${before.waiters === 1 ? '' : 's'}`;
    if (!args.flags.force) {
      console.log(
        before.held
          ? `${shown} on ${target.address} is held (${describeTtl(before.ttlMs)}, ${waiters}); not removed: pass --force to remove it`
          : `${shown} on ${target.address} is not held; nothing to remove`,
      );
      return before.held ? 1 : 0;
    }
    const removed = await target.store.forceUnlock(key);
    console.log(
      removed
        ? `removed ${shown} on ${target.address} (${describeTtl(before.ttlMs)}, ${waiters}, told the key is free)`
        : `${shown} on ${target.address} was not held; its waiters were told it is free`,
    );
    return 0;
  });
}

function describeTtl(ttlMs: number | undefined): string {
  return ttlMs === undefined ? 'no TTL' : `${(ttlMs / 1000).toFixed(1)} s left`;
}
