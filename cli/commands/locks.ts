// `lockweave locks`: the lock keys on a Redis, with what is left of each lease, its waiters and its
// last fencing token — "what is locked, and by how many callers waited for" — for an operator.
// SCAN, never KEYS (which blocks the server for as long as it walks the whole keyspace), bounded
// in keys and in time; on a Cluster, every primary. Each key is read by the runtime's own inspect
// script, in one step.
import type { Redis } from 'ioredis';
import { DEFAULT_LOCK_OPTIONS } from '../../runtime/base/options';
import { printable } from '../../runtime/base/printable';
import { isOwnKey } from '../../runtime/store/waiting-line';
import type { KeyState } from '../../runtime/store/lock-store';
import { UsageError } from '../cli-error';
import type { Command, ParsedArgs } from '../command';
import { openTarget, REDIS_FLAGS, talkingTo } from '../redis-target';

const DEFAULT_LIMIT = 1000;
/** SCAN stops after this long, whatever is left: a command an operator runs must come back. */
const SCAN_BOUND_MS = 20_000;

export const locks: Command = {
  name: 'locks',
  summary: 'list the lock keys on a Redis with their TTL, waiters and fencing token (SCAN, never KEYS)',
  synopsis: 'lockweave locks [--redis <url>] [--cluster] [--prefix <prefix>] [--match <glob>] [--limit <n>]',
  flags: [
    ...REDIS_FLAGS,
    { names: ['--prefix'], value: '<prefix>', help: `the locks' key prefix (default: ${DEFAULT_LOCK_OPTIONS.prefix})` },
    { names: ['--match'], value: '<glob>', help: 'a SCAN pattern for the keys instead (default: <prefix>*)' },
    { names: ['--limit'], value: '<n>', help: `list at most n keys (default: ${DEFAULT_LIMIT})` },
  ],
  operands: { min: 0, max: 0, name: '' },
  details: [
    "Lists each key the pattern matches (lockweave's own keys beside them — lines of waiters, fencing",
    'counters — left out) with what is left of its lease, its waiters whose places have not lapsed, and',
    'its last fencing token. A key without a TTL is marked "no TTL": lockweave never writes one, so',
    'another program did. The walk stops after --limit keys or 20 s, and says so.',
    '',
    'Exit: 0 listed (also when nothing is locked); 1 the Redis cannot be reached; 2 bad command line.',
    '',
    'Examples:',
    '  lockweave locks --redis redis://127.0.0.1:6379',
    '  lockweave locks --match "LOCK_payOrder_*"',
    '  lockweave locks --redis redis://10.0.0.5:7000 --cluster',
  ].join('\n'),
  run: runLocks,
};

async function runLocks(args: ParsedArgs): Promise<number> {
  const limit = args.flags.limit === undefined ? DEFAULT_LIMIT : Number(args.flags.limit);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new UsageError('--limit must be a whole number >= 1', 'locks');
  const pattern = args.flags.match ?? `${globEscaped(args.flags.prefix ?? DEFAULT_LOCK_OPTIONS.prefix)}*`;
  const target = openTarget(args.flags);
  return talkingTo(target, async () => {
    const found = await scan(await target.primaries(), pattern, limit);
    const rows: Array<[string, KeyState]> = [];
    for (const key of found.keys) {
      const state = await target.store.inspect(key);
      if (state.held) rows.push([key, state]);
    }
    print(rows);
    const stopped = found.stopped ? ` (stopped: ${found.stopped}; narrow it with --match)` : '';
    console.log(
      `${rows.length} lock${rows.length === 1 ? '' : 's'} on ${target.address} matching ${printable(pattern)}${stopped}`,
    );
    return 0;
  });
}

async function scan(
  primaries: readonly Redis[],
  pattern: string,
  limit: number,
): Promise<{ keys: string[]; stopped?: string }> {
  const keys: string[] = [];
  const until = Date.now() + SCAN_BOUND_MS;
  for (const node of primaries) {
    let cursor = '0';
    do {
      if (Date.now() >= until) return { keys, stopped: `after ${SCAN_BOUND_MS / 1000} s` };
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      for (const key of batch) {
        if (isOwnKey(key)) continue;
        if (keys.length === limit) return { keys, stopped: `after ${limit} keys` };
        keys.push(key);
      }
    } while (cursor !== '0');
  }
  return { keys };
}

function print(rows: ReadonlyArray<[string, KeyState]>): void {
  if (rows.length === 0) return;
  const table = [
    ['KEY', 'TTL', 'WAITERS', 'FENCE'],
    ...rows.map(([key, state]) => [
      printable(key),
      state.ttlMs === undefined ? 'no TTL' : `${(state.ttlMs / 1000).toFixed(1)} s`,
      String(state.waiters ?? '-'),
      state.fence === undefined ? '-' : String(state.fence),
    ]),
  ];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  for (const row of table)
    console.log(
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    );
}

/** A prefix matched as written: SCAN's glob reads * ? [ ] and \ as patterns. */
function globEscaped(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}
