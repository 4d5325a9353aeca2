// Several keys at once across processes: two processes transfer between the same two accounts in
// opposite directions, many times, each taking both keys (withLock({ keys })). Taken in one global
// order, they never deadlock — every transfer completes, well within its wait bound — and no two
// are ever inside at once (a marker key per account, set NX inside the lock).
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { uniqueId, useRedis } from '../helpers/redis-fixture';

const fixture = useRedis(test);

function transfers(flag: string, from: string, to: string, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(__dirname, 'programs', 'transfers.js'), flag, from, to, String(count)],
      {
        env: { ...process.env, REDIS_URL: fixture.server.url },
        timeout: 90_000,
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', () => resolve(output));
  });
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
