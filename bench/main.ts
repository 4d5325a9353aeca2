// `npm run bench` (scripts/bench.sh builds the bench with tspc, then runs this compiled).
//
// 1. the Redis scenarios, every contender in fresh child processes, alternating order;
// 2. the run-time cost of weaving, on MemoryLockStore;
// 3. compile time of two generated projects (bench/compile/shapes.ts), with and without the plugin;
// then results.md, results.svg and the same tables on the terminal.
// BENCH_QUICK=1: a smoke run of about a minute, written to bench/.tmp/quick/. BENCH_ONLY=scenarios,weave,compile: a subset
// (for working on one part; results are then not written unless BENCH_WRITE=1). BENCH_REPS=n and
// BENCH_CONTENDERS=a,b and BENCH_SCENARIOS=hot-key,multi-process change the repetitions, contenders and scenarios;
// BENCH_CORE_SCENARIOS=1 leaves S4 out (the Node lines' runs); BENCH_SUMMARY_JSON=file also writes the
// figures as JSON (scripts/bench.sh runs the scenarios on every Node line that way, see report/node-lines.ts).
import { writeFileSync } from 'node:fs';
import { startRedisServer } from '../test/helpers/redis-server';
import { measureCeiling, type Ceiling } from './ceiling';
import { benchConfig } from './config';
import { BASELINE_ID, CONTENDER_IDS } from './contenders';
import { runJob } from './child/spawn-child';
import { measureShapes, type ShapeTimes } from './compile/measure-shapes';
import { cpuTicks, machineFacts, stolenSince } from './machine';
import { TMP_DIR, TRANSFORMER_ENTRY, writeResults } from './paths';
import { renderMarkdown } from './report/markdown';
import { summarise } from './report/summary';
import { renderSvg } from './report/svg';
import { checkTargets } from './report/targets';
import { CORE_SCENARIOS, runSuite, type Samples } from './suite';
import type { OverheadResult } from './weave/run-overhead';

const log = (line: string) => console.log(line);

async function main(): Promise<void> {
  const config = benchConfig(process.env.BENCH_QUICK === '1', Number(process.env.BENCH_REPS) || undefined);
  const contenderIds = process.env.BENCH_CONTENDERS?.split(',') ?? CONTENDER_IDS;
  const only = new Set((process.env.BENCH_ONLY ?? 'scenarios,weave,compile').split(','));
  const startTicks = cpuTicks();
  let machine = machineFacts();
  const startedAt = Date.now();
  const notes: string[] = [];
  log(
    `lockweave bench${config.quick ? ' (quick)' : ''}: ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, redis ${machine.redis}`,
  );

  const contenders = (await runJob({ kind: 'describe' }, 'described', 30_000)).contenders.filter((c) =>
    contenderIds.includes(c.id),
  );
  const lockweave = contenders.find((c) => c.id === 'lockweave');
  if (lockweave && lockweave.name !== 'lockweave') {
    notes.push(
      'The transformer did not weave the tagged contender when the bench was built, so the hand-woven equivalent (bench/contenders/lockweave-hand-woven.ts) was measured in its place.',
    );
  }

  let samples = {} as Samples;
  let ceiling: Ceiling | string | undefined;
  if (only.has('scenarios')) {
    const redis = await startRedisServer();
    log(`redis-server ${redis.pid} on ${redis.url}`);
    try {
      // The Node lines (BENCH_CORE_SCENARIOS=1, scripts/bench.sh) run what their table reports: S1-S3 and succession.
      const among = process.env.BENCH_CORE_SCENARIOS === '1' ? CORE_SCENARIOS : undefined;
      samples = await runSuite(config, redis.url, contenderIds, log, { redisPid: redis.pid, among });
      log('the ceiling: redis-benchmark on the same server…');
      ceiling = await measureCeiling(redis.url, config.uncontended.callers);
    } finally {
      await redis.stop();
    }
  }

  let weave: OverheadResult | undefined;
  if (only.has('weave')) {
    log('weaving overhead (MemoryLockStore)…');
    weave = (await runJob({ kind: 'weave-overhead', ...config.weave }, 'overhead', 300_000)).result;
  }

  let compile: ShapeTimes[] | undefined;
  if (only.has('compile')) compile = measureShapes(TMP_DIR, TRANSFORMER_ENTRY, config.compile.runs, log, notes);

  const summary = summarise(samples, contenders, BASELINE_ID, compile, weave);
  if (ceiling !== undefined) notes.push(describeCeiling(ceiling, summary));
  const checks = checkTargets(summary, Number(process.versions.node.split('.')[0]));
  notes.push(`Whole bench took ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`);
  machine = { ...machine, stolen: stolenSince(startTicks) };
  const markdown = renderMarkdown(summary, checks, machine, config, notes);
  log('');
  log(markdown);
  if (process.env.BENCH_SUMMARY_JSON)
    writeFileSync(process.env.BENCH_SUMMARY_JSON, JSON.stringify({ machine, reps: config.reps, summary, checks }));
  if (!process.env.BENCH_ONLY || process.env.BENCH_WRITE === '1') {
    const subtitle = `${machine.cpu}, ${machine.cores} cores, node ${machine.node}, redis ${machine.redis}, ${machine.date.slice(0, 10)}; medians of ${config.reps} reps${config.quick ? ' (quick run)' : ''}`;
    writeResults(config.quick, { 'results.md': markdown, 'results.svg': renderSvg(summary, subtitle) }, log);
  }
}

/** The ceiling, and S1's lockweave and floor as shares of it. */
function describeCeiling(ceiling: Ceiling | string, summary: ReturnType<typeof summarise>): string {
  if (typeof ceiling === 'string') return `The ceiling was not measured: ${ceiling}.`;
  const s1 = summary.scenarios.find((table) => table.id === 'uncontended')?.rows ?? [];
  const share = (id: string) => {
    const row = s1.find((r) => r.id === id);
    return row
      ? `${row.name} ${Math.round(row.throughput.value).toLocaleString('en')}/s = ${((100 * row.throughput.value) / ceiling.sectionsPerSec).toFixed(0)}% of it`
      : undefined;
  };
  const shares = [share('lockweave'), share(BASELINE_ID)].filter(Boolean).join('; ');
  return (
    `The ceiling (redis-benchmark on the same redis-server, ${ceiling.clients} clients, pipeline ${ceiling.pipeline}): ` +
    `${Math.round(ceiling.grantsPerSec).toLocaleString('en')} grants/s (SET NX PX) and ${Math.round(ceiling.releasesPerSec).toLocaleString('en')} releases/s (the release script) ` +
    `→ ${Math.round(ceiling.sectionsPerSec).toLocaleString('en')} sections/s at most; S1 ${shares} (bench/ceiling.ts).`
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
