// The NestJS example (examples/nest: an application context with @nestjs/schedule, a @Cron method
// with the tag) as it is deployed: built by `nest build` (the Nest CLI's tsc builder with the
// lockweave/nest plugin of its nest-cli.json), run by three processes against one redis-server. Their cron timers fire on the same wall-clock seconds; each tick's report is
// written by one instance only, and every tick all three were up for is written by one of them.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, linkPackage } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';
import { processScratch } from '../helpers/process-scratch';
import { useRedis } from '../helpers/redis-fixture';

const projectDir = processScratch('examples-nest');
const outDir = join(projectDir, 'dist');
const NEST = join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
const fixture = useRedis(test);
/** The example's cron period (EVERY_FOUR_SECONDS) and its tag's minHold. */
const PERIOD_MS = 4_000;
const MIN_HOLD_MS = 3_000;

test.before(() => {
  linkPackage(); // lockweave/nest resolves from test/.tmp as from a user's node_modules
  cpSync(join(ROOT, 'examples', 'nest'), projectDir, { recursive: true, filter: (from) => !from.endsWith('dist') });
  const built = spawnSync(process.execPath, [NEST, 'build'], { cwd: projectDir, encoding: 'utf8', timeout: 120_000 });
  if (built.status !== 0) throw new Error(`nest build failed:\n${built.stdout}${built.stderr}`);
});

const runChild = childRunner(3);

/** One instance, run to its end: what it printed; a non-zero exit fails the test with its output. */
async function instance(name: string, runForMs: number): Promise<string> {
  const ran = await runChild(process.execPath, [join(outDir, 'main.mjs'), name, String(runForMs)], {
    cwd: outDir,
    env: { REDIS_URL: fixture.server.url },
  });
  if (ran.status !== 0) throw new Error(`${name} exited ${ran.status}:\n${ran.output}`);
  return ran.output;
}

test('three Nest instances with one @Cron job: each tick is written by one instance only', async (t) => {
  const outputs = await Promise.all(['A', 'B', 'C'].map((name) => instance(name, 15_000)));
  const lines = outputs.flatMap((output) => output.trim().split('\n'));
  const times = (word: string) =>
    lines.filter((line) => line.startsWith(`${word} `)).map((line) => Number(line.split(' ')[1]));
  const [ready, closing] = [times('ready'), times('closing')];
  t.is(ready.length, 3, lines.join('\n'));
  t.is(closing.length, 3, lines.join('\n'));

  const writers = new Map<number, string[]>();
  for (const line of lines) {
    const match = /^tick (\d+): report written by (\w+)$/.exec(line);
    if (match) writers.set(Number(match[1]), [...(writers.get(Number(match[1])) ?? []), match[2]]);
  }
  for (const [tick, by] of writers) t.is(by.length, 1, `tick ${tick} written by ${by.join(', ')}`);

  // The ticks all three instances were up for, their minHold included: each was written once.
  const first = Math.ceil((Math.max(...ready) + 200) / PERIOD_MS);
  const last = Math.floor((Math.min(...closing) - MIN_HOLD_MS) / PERIOD_MS);
  t.true(last - first >= 1, `at least two whole ticks: ${lines.join('\n')}`);
  for (let tick = first; tick <= last; tick++)
    t.true(writers.has(tick), `tick ${tick} was written:\n${lines.join('\n')}`);
});
