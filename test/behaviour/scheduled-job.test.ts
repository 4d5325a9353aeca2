// The scheduled-job example (examples/src/nightly-report.ts, scheduled-job.ts) as it is deployed:
// compiled by tspc, run by three processes against one redis-server, their ticks on the same
// wall-clock times, each up to 300 ms late. Every tick's report is written exactly once: the first
// instance takes the business's one key, minHold keeps it past the others' late timers, and they
// skip — and the next tick finds it free again.
import test from 'ava';
import { join } from 'node:path';
import { tspc } from '../helpers/tspc';
import { childRunner } from '../helpers/child-process';
import { processScratch } from '../helpers/process-scratch';
import { useRedis } from '../helpers/redis-fixture';

const outDir = processScratch('examples');
const fixture = useRedis(test);

test.before(() => {
  const compiled = tspc(['-p', 'examples/tsconfig.json', '--outDir', outDir]);
  if (compiled.status !== 0) throw new Error(`tspc failed:\n${compiled.output}`);
});

const runChild = childRunner(3);

/** One instance, run to its end: what it printed; a non-zero exit fails the test with its output. */
async function instance(name: string, ticks: number, intervalMs: number, startAt: number): Promise<string> {
  const ran = await runChild(
    process.execPath,
    [join(outDir, 'scheduled-job.js'), name, String(ticks), String(intervalMs), String(startAt)],
    {
      cwd: outDir,
      env: { REDIS_URL: fixture.server.url },
    },
  );
  if (ran.status !== 0) throw new Error(`${name} exited ${ran.status}:\n${ran.output}`);
  return ran.output;
}

test('three instances on one schedule: each tick is run by exactly one, the others skip it', async (t) => {
  const ticks = 3;
  // minHold is 2.5 s: the ticks are further apart, and the processes (loading, connecting) are up well
  // before the first, on a loaded machine too: a process late for a tick by more than minHold would run it again.
  const intervalMs = 3_500;
  const startAt = Date.now() + 8_000;
  const outputs = await Promise.all(['A', 'B', 'C'].map((name) => instance(name, ticks, intervalMs, startAt)));
  const lines = outputs.flatMap((output) => output.trim().split('\n'));
  t.is(lines.length, ticks * 3, lines.join('\n'));
  for (let k = 0; k < ticks; k++) {
    const ofTick = lines.filter((line) => line.startsWith(`tick ${k}: `));
    const written = ofTick.filter((line) => line.includes('report written by'));
    t.is(written.length, 1, `tick ${k}:\n${ofTick.join('\n')}`);
    t.is(ofTick.filter((line) => line.endsWith('skipped')).length, 2);
  }
});
