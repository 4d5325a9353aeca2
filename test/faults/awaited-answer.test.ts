// A caller that awaits Redis's answer outside a locked call — inspect(), a lease's extend() — keeps
// the process up until the answer settles, as a locked call's acquisition and release do
// (runtime/base/process-hold.ts). Without it Node exited with the promise never settled: a script
// that acts on inspect()'s answer did nothing, and said nothing. And only the answer: a release
// waiting for a nested call that never ends does not hold the process (it held it for ever).
import test from 'ava';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runToExit } from '../helpers/settle-and-exit';
import { startRedisServer } from '../helpers/redis-server';

const PROGRAM = join(__dirname, 'programs', 'awaited-answer.js');

/** A loopback port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('inspect() on a Redis that is not there settles before the process exits', async (t) => {
  const ran = await runToExit(PROGRAM, ['inspect', `redis://127.0.0.1:${await closedPort()}`]);
  t.regex(ran.out, /^settled RedisConnectionError$/m, `${ran.out} ${ran.err}`);
  t.is(ran.code, 0, `exited by itself (killed after 60 s otherwise): ${ran.err}`);
});

test("a lease's extend() while its Redis is paused settles before the process exits", async (t) => {
  const redis = await startRedisServer();
  t.teardown(() => redis.stop());
  const ran = await runToExit(PROGRAM, ['extend', redis.url]);
  // Answered after the pause, or past the store's bound on a command: either way, settled.
  t.regex(ran.out, /^settled (ok|\w+Error)$/m, `${ran.out} ${ran.err}`);
  t.is(ran.code, 0, `exited by itself (killed after 60 s otherwise): ${ran.err}`);
});

test('a nested call that never ends keeps its key, not the process: the process exits as one awaiting a promise that never settles does', async (t) => {
  const redis = await startRedisServer();
  t.teardown(() => redis.stop());
  const ran = await runToExit(PROGRAM, ['nested-never', redis.url]);
  t.regex(ran.out, /^body ended$/m, `${ran.out} ${ran.err}`);
  t.is(ran.code, 0, `exited by itself (killed after 60 s otherwise): ${ran.err}`);
});
