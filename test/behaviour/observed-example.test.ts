// The metrics example (examples/src/observed.ts) as a user runs it: compiled by tspc, against a
// real redis-server. Four woven calls on one order: every lockweave metric a dashboard starts with
// has its point, with the business flag and the woven method, and no order number.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { processScratch } from '../helpers/process-scratch';
import { tspc } from '../helpers/tspc';
import { useRedis } from '../helpers/redis-fixture';

const outDir = processScratch('examples-observed');
const fixture = useRedis(test);

test.before(() => {
  const compiled = tspc(['-p', 'examples/tsconfig.json', '--outDir', outDir]);
  if (compiled.status !== 0) throw new Error(`tspc failed:\n${compiled.output}`);
});

test('four calls on one order: acquisitions, waits, holds, contention and spans, by business flag', (t) => {
  const ran = spawnSync(process.execPath, [join(outDir, 'observed.js')], {
    encoding: 'utf8',
    env: { ...process.env, REDIS_URL: fixture.server.url },
    timeout: 60_000,
  });
  t.is(ran.status, 0, `${ran.stdout}${ran.stderr}`);
  const lines = ran.stdout.split('\n');
  const labels = '"lock.business_flag":"payOrder","lock.site":"OrderService.payByValue"';
  t.true(lines.includes(`metric lockweave.lock.acquisitions {${labels},"lock.outcome":"acquired"} 4`), ran.stdout);
  t.true(lines.includes(`metric lockweave.lock.wait.duration {${labels},"lock.outcome":"acquired"} count 4`));
  t.true(lines.includes(`metric lockweave.lock.hold.duration {${labels}} count 4`));
  t.regex(ran.stdout, new RegExp(`metric lockweave\\.lock\\.contended \\{${labels.replace(/\./g, '\\.')}\\} [1-3]\\n`));
  t.is(lines.filter((line) => line.startsWith('span lockweave.acquire OrderService.payByValue acquired')).length, 4);
  t.is(lines.filter((line) => line === 'span lockweave.hold OrderService.payByValue').length, 4);
  t.notRegex(ran.stdout.replace(/body: paying order T-\d+/g, ''), /T-\d+/);
});
