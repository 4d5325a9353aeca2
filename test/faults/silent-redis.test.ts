// A Redis that accepts connections and never answers (paused, swapped out, a link that drops
// everything): a locked call still settles within its bound, and the process then exits by itself.
// It used to reject after ~4 s and then hang for good: ioredis timed out the handshake of each
// reconnect on ref'd timers, one after another.
import test from 'ava';
import { join } from 'node:path';
import { startSilentServer } from '../helpers/silent-server';
import { runToExit } from '../helpers/settle-and-exit';

const PROGRAM = join(__dirname, 'programs', 'silent-redis-call.js');
/** retries × waitTime + one wait for the last answer: 300 + 300 ms. */
const DEADLINE_MS = 600;
/** Scheduling noise and a process start on a loaded 2-core machine: a bound, not an expectation. */
const SLACK_MS = 4_000;

test('a call on a Redis that never answers rejects within its bound, and the process exits by itself without close()', async (t) => {
  const silent = await startSilentServer();
  t.teardown(() => silent.close());
  const ran = await runToExit(PROGRAM, ['url', silent.url]);
  t.log(`${ran.out.trim()}; exited ${ran.exitedAfterMs} ms after its start`);
  const settled = ran.out.match(/^LockAcquireError (\d+)$/m);
  t.truthy(
    settled,
    `the call settled with LockAcquireError before the process ended: ${JSON.stringify(ran.out)} ${ran.err}`,
  );
  t.true(
    Number(settled?.[1]) < DEADLINE_MS + SLACK_MS,
    `rejected after ${settled?.[1]} ms (deadline ${DEADLINE_MS} ms)`,
  );
  t.is(ran.code, 0, `exited by itself (killed after 60 s otherwise): ${ran.err}`);
  t.true(ran.exitedAfterMs < 30_000, `exited ${ran.exitedAfterMs} ms after its start`);
});
