// Several keys at once across processes: two processes transfer between the same two accounts in
// opposite directions, many times, each taking both keys (withLock({ keys })). Taken in one global
// order, they never deadlock — every transfer completes, well within its wait bound — and no two
// are ever inside at once (a marker key per account, set NX inside the lock).
import test from 'ava';
import { join } from 'node:path';
import { childRunner } from '../helpers/child-process';
import { uniqueId, useRedis } from '../helpers/redis-fixture';

const fixture = useRedis(test);

const runChild = childRunner(2);

async function transfers(flag: string, from: string, to: string, count: number): Promise<string> {
  const ran = await runChild(
    process.execPath,
    [join(__dirname, 'programs', 'transfers.js'), flag, from, to, String(count)],
    {
      cwd: __dirname,
      env: { REDIS_URL: fixture.server.url },
    },
  );
  return ran.output;
}

test('two processes transferring A→B and B→A take turns: every transfer done, none overlapping', async (t) => {
  const flag = uniqueId('accounts');
  const outputs = await Promise.all([transfers(flag, 'A', 'B', 25), transfers(flag, 'B', 'A', 25)]);
  for (const output of outputs) {
    t.regex(output, /^done 25$/m, output);
    t.false(output.includes('overlap'), output);
  }
  t.deepEqual(await fixture.redis.keys(`LOCK_${flag}*`), []);
});
