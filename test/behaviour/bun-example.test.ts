// The examples' demo (examples/src/main.ts) as a Bun user runs it: `bun run src/main.ts` in examples/,
// whose bunfig.toml preloads lockweave/bun/register, against a real server. Bun runs the TypeScript
// itself; each tagged method is woven as Bun loads its file, so the demo's cases lock as the tspc build's do.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';
import { processScratch } from '../helpers/process-scratch';
import { useRedis } from '../helpers/redis-fixture';

/** The binary of the `bun` devDependency's platform package (scripts/setup.sh installs it). */
const BUN = path.join(ROOT, 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun');
const fixture = useRedis(test);
const runChild = childRunner(1);

test('bun run src/main.ts in examples/: every case locks, the waiter wakes at the release, the stale write is refused', async (t) => {
  if (!fs.existsSync(BUN)) throw new Error(`no Bun binary at ${BUN}: run \`npm run setup\``);
  const ran = await runChild(BUN, ['run', 'src/main.ts'], {
    cwd: path.join(ROOT, 'examples'),
    env: {
      REDIS_URL: fixture.server.url,
      NO_COLOR: '1',
      LOCKWEAVE_CACHE_DIR: processScratch('bun-example-cache'),
    },
  });
  t.is(ran.status, 0, ran.output);
  for (const order of ['Test001', 'Test002', 'Test003'])
    t.regex(ran.stdout, new RegExp(`lockweave: acquired LOCK_payOrder_${order} `), ran.output);
  t.regex(ran.stdout, /the second caller woke when/);
  t.regex(ran.stdout, /client A writes count=10 with fence \d+: REFUSED/);
});
