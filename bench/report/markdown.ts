// results.md: machine facts, settings of every contender, one table per scenario, compile
// time, weaving overhead, and the targets — the same text is printed to the terminal.
import type { BenchConfig } from '../config';
import { shareText } from '../compile/plugin-share';
import { describeShape } from '../compile/shapes';
import type { MachineFacts } from '../machine';
import { SCENARIOS } from '../suite';
import type { Figure, Summary } from './summary';
import type { TargetCheck } from './targets';

const num = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const times = (f: Figure | undefined) => (f ? `${num(f.ratio, 2)}×` : '—');

function table(header: string[], rows: string[][]): string {
  const lines = [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  return lines.join('\n');
}

export function renderMarkdown(
  summary: Summary,
  checks: TargetCheck[],
  machine: MachineFacts,
  config: BenchConfig,
  notes: string[],
): string {
  const out: string[] = [];
  out.push(`# lockweave benchmark results${config.quick ? ' (BENCH_QUICK smoke run: indicative only)' : ''}`);
  out.push('');
  out.push(
    'Produced by `npm run bench` (bench/main.ts). Every figure is a median over repetitions; every ratio is the median of',
  );
  out.push(
    'per-repetition ratios to the floor (or to the plain build / hand-written code) measured in the same run, with the',
  );
  out.push(
    `order of contenders alternating between repetitions. Each measured run is a fresh child process, warmed up first.`,
  );
  out.push('');
  out.push('## Machine');
  out.push('');
  out.push(
    table(
      ['', ''],
      [
        ['CPU', machine.cpu],
        ['cores', String(machine.cores)],
        ['memory', `${machine.memoryGiB} GiB`],
        ['node', machine.node],
        ['redis-server', `${machine.redis} (throwaway local server on loopback, persistence off)`],
        ['load average at start', machine.loadAverage],
        ['CPU time the host stole during the run (steal)', machine.stolen ?? 'not read'],
        ['date', machine.date],
        ['repetitions', String(config.reps)],
      ],
    ),
  );
  out.push('');
  out.push('The machine is shared with other work, so absolute numbers are noisy; read the ratios.');
  out.push('');
  out.push('## Contenders and their settings');
  out.push('');
  out.push(
    table(
      ['contender', 'settings'],
      summary.contenders.map((c) => [c.name, c.settings.replace(/\|/g, '\\|')]),
    ),
  );
  out.push('');
  out.push(
    'Each contender gets its own ioredis 5 client (default options) for its locks and the body; one that cannot take a',
  );
  out.push(
    'client (node-redisson) opens its own to the same server, as its settings say. Latency is per critical section: from',
  );
  out.push('calling the lock to its promise settling (waiting + body + release).');
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(
    table(
      ['target', 'measured', 'result'],
      checks.map((c) => [c.target, c.measured, c.met === undefined ? 'not checked' : c.met ? 'met' : '**missed**']),
    ),
  );
  out.push('');
  for (const scenario of summary.scenarios) {
    const info = SCENARIOS[scenario.id];
    const succession = scenario.rows.some((row) => row.successionP50Ms);
    const hot = scenario.rows.some((row) => row.lostUpdates !== undefined);
    const clientCpu = scenario.rows.some((row) => row.clientCpuUs);
    const redisCpu = scenario.rows.some((row) => row.redisCpuUs);
    out.push(`## Scenario: ${info.title}`);
    out.push('');
    out.push(`${info.describe(config)}.`);
    out.push('');
    const header = ['contender', 'sections/s', '× floor', 'p50 ms', '× floor', 'p99 ms', '× floor', 'max ms'];
    if (succession) header.push('succession p50 ms', '× floor', 'succession p99 ms', '× floor');
    if (clientCpu) header.push('client CPU µs', '× floor');
    if (redisCpu) header.push('Redis CPU µs', '× floor');
    if (hot) header.push('lost updates');
    header.push('failed');
    const rows = scenario.rows.map((row) => {
      const cells = [
        row.name + (row.cutShort ? ' (cut short)' : ''),
        num(row.throughput.value, 0),
        times(row.throughput),
        num(row.p50Ms.value, 2),
        times(row.p50Ms),
        num(row.p99Ms.value, 2),
        times(row.p99Ms),
        num(row.maxMs.value, 1),
      ];
      if (succession)
        cells.push(
          num(row.successionP50Ms?.value ?? NaN, 3),
          times(row.successionP50Ms),
          num(row.successionP99Ms?.value ?? NaN, 2),
          times(row.successionP99Ms),
        );
      if (clientCpu) cells.push(num(row.clientCpuUs?.value ?? NaN, 1), times(row.clientCpuUs));
      if (redisCpu) cells.push(num(row.redisCpuUs?.value ?? NaN, 1), times(row.redisCpuUs));
      if (hot) cells.push(String(row.lostUpdates ?? '—'));
      cells.push(String(row.failures));
      return cells;
    });
    out.push(table(header, rows));
    out.push('');
  }
  if (summary.compile) {
    out.push('## Compile time');
    out.push('');
    out.push(
      '`tspc -p` on generated projects, each build run in turn with the others, in an order that alternates between runs.',
    );
    out.push(
      'The plugin reads the JSDoc of the files that mention the tag itself: plain tspc and the plugin build parse the same.',
    );
    out.push(
      'The reading floor (bench/compile/reading-floor.ts) is a plugin that only parses those files again with their JSDoc, as any plugin reading a JSDoc tag under tsc ≥ 5.3 must: the least such a plugin can cost.',
    );
    for (const c of summary.compile) {
      const runs = (list: number[]) => list.map((ms) => num(ms / 1000, 2)).join(', ');
      out.push('');
      out.push(`### ${describeShape(c.shape)}`);
      out.push('');
      out.push(`${c.times.ms.plain.length} runs of each build.`);
      out.push('');
      out.push(
        table(
          ['build', 'median s', 'runs (s)', 'ratio to plain (median of runs)', 'CPU s (runs)', 'CPU ratio to plain'],
          [
            ['tspc, no plugin', num(c.plainMs / 1000, 2), runs(c.times.ms.plain), '1', runs(c.times.cpuMs.plain), '1'],
            [
              "tspc + the reading floor (re-reads the tagged files' JSDoc, nothing else)",
              num(c.floorMs / 1000, 2),
              runs(c.times.ms.floor),
              `${num(c.floorRatio, 3)}×`,
              runs(c.times.cpuMs.floor),
              `${num(c.floorCpuRatio, 3)}×`,
            ],
            [
              'tspc + lockweave plugin',
              num(c.pluginMs / 1000, 2),
              runs(c.times.ms.plugin),
              `${num(c.ratio, 3)}×`,
              runs(c.times.cpuMs.plugin),
              `${num(c.cpuRatio, 3)}×`,
            ],
          ],
        ),
      );
      out.push('');
      out.push(`${c.times.wovenMethods} defineLock() calls emitted for ${c.taggedMethods} tagged methods.`);
      if (c.share)
        out.push(
          '',
          `In CPU profiles of ${c.profiledMs.length} more plugin builds (bench/compile/plugin-share.ts), lockweave's own code — loading its modules, the analysis, the weave — took ${c.profiledMs.map((ms) => num(ms, 0)).join(', ')} ms; in the build of median share, ${num(c.share.lockweaveMs, 0)} ms of ${num(c.share.totalMs, 0)} ms: ${shareText(c.share)} of its CPU. Not in it: TypeScript printing the woven methods, and the garbage collection of what lockweave allocated.`,
        );
      if (c.times.pluginError) out.push('', 'The plugin build failed:', '', '```', c.times.pluginError, '```');
    }
    out.push('');
  }
  if (summary.weave) {
    const w = summary.weave;
    out.push('## Run-time cost of weaving');
    out.push('');
    out.push(
      `A woven method vs the same body in a hand-written try/finally around the same runtime calls, on MemoryLockStore, ${config.weave.batches} alternating batches of ${config.weave.callsPerBatch} calls.`,
    );
    out.push('');
    out.push(
      table(
        ['variant', 'ns per call (median)'],
        [
          [w.woven ? 'woven by tspc' : 'tagged, NOT woven (transformer unavailable)', num(w.wovenNs, 0)],
          ['hand-written try/finally', num(w.handNs, 0)],
          ['ratio (median of pairs)', `${num(w.ratio, 3)}×`],
        ],
      ),
    );
    out.push('');
  }
  if (notes.length) {
    out.push('## Notes');
    out.push('');
    for (const note of notes) out.push(`- ${note}`);
    out.push('');
  }
  out.push('![ratios to the floor](results.svg)');
  out.push('');
  return out.join('\n');
}
