// The issue's targets, checked against the summary. A target is met, missed, or — when the
// thing it is about could not be measured (e.g. the transformer did not weave) — not checked.
import { shareText } from '../compile/plugin-share';
import { describeShape } from '../compile/shapes';
import type { ContenderRow, Summary, ScenarioTable } from './summary';

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}

const PRODUCT = 'lockweave';
const BASELINE = 'floor';

/** Our own variants are not peers to beat. */
const isPeer = (id: string) => id !== BASELINE && !id.startsWith(PRODUCT);

function rowsOf(summary: Summary, scenario: string): ScenarioTable['rows'] {
  return summary.scenarios.find((table) => table.id === scenario)?.rows ?? [];
}

function aheadOfPeers(
  summary: Summary,
  scenario: string,
  metric: 'throughput' | 'successionP50Ms' | 'successionP99Ms',
  label: string,
): TargetCheck {
  const rows = rowsOf(summary, scenario);
  const ours = rows.find((row) => row.id === PRODUCT);
  const peers = rows.filter((row) => isPeer(row.id));
  const higherIsBetter = metric === 'throughput';
  const value = (row: (typeof rows)[number]) => row[metric]?.value ?? NaN;
  const unit = higherIsBetter ? '/s' : ' ms';
  const fmt = (n: number) => (higherIsBetter ? n.toFixed(0) : n.toFixed(2)) + unit;
  if (!ours || peers.length === 0) return { target: label, measured: 'not measured', met: undefined };
  const best = peers.reduce((a, b) => ((higherIsBetter ? value(b) > value(a) : value(b) < value(a)) ? b : a));
  const met = higherIsBetter ? value(ours) > value(best) : value(ours) < value(best);
  return {
    target: label,
    measured: `${ours.name} ${fmt(value(ours))}; best peer ${best.name} ${fmt(value(best))}`,
    met,
  };
}

/** The uncontended target of the issue: ≥ 0.95 × the floor on the LTS lines (24, 26), ≥ 0.9 × on 22 (and on 20). */
function uncontendedTarget(nodeMajor: number): number {
  return nodeMajor >= 24 ? 0.95 : 0.9;
}

function ratioAtLeast(row: ContenderRow | undefined, label: string, min: number): TargetCheck {
  if (!row) return { target: label, measured: 'not measured', met: undefined };
  return {
    target: label,
    measured: `${row.throughput.ratio.toFixed(2)} × (${row.throughput.value.toFixed(0)}/s)`,
    met: row.throughput.ratio >= min,
  };
}

function p99AtMost(row: ContenderRow | undefined, label: string, maxMs: number): TargetCheck {
  if (!row) return { target: label, measured: 'not measured', met: undefined };
  return {
    target: label,
    measured: `${row.p99Ms.value.toFixed(1)} ms (max ${row.maxMs.value.toFixed(0)} ms)`,
    met: row.p99Ms.value <= maxMs,
  };
}

export function checkTargets(summary: Summary, nodeMajor: number): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ours = (scenario: string) => rowsOf(summary, scenario).find((row) => row.id === PRODUCT);
  const s1 = uncontendedTarget(nodeMajor);
  checks.push(
    ratioAtLeast(
      ours('uncontended'),
      `S1 uncontended throughput ≥ ${s1.toFixed(2)} × floor (Node ${nodeMajor}, defaults: reentrant on)`,
      s1,
    ),
  );
  checks.push(ratioAtLeast(ours('hot-key'), 'S2 hot-key throughput ≥ 1.2 × floor', 1.2));
  checks.push(p99AtMost(ours('hot-key'), 'S2 hot-key p99 ≤ 10 ms', 10));
  checks.push(ratioAtLeast(ours('multi-process'), 'S3 hot key across processes: throughput ≥ 1.0 × floor', 1.0));
  checks.push(p99AtMost(ours('multi-process'), 'S3 hot key across processes: p99 ≤ 20 ms', 20));
  checks.push(aheadOfPeers(summary, 'hot-key', 'throughput', 'hot-key throughput ahead of every peer (one process)'));
  checks.push(
    aheadOfPeers(summary, 'multi-process', 'throughput', 'hot-key throughput ahead of every peer (several processes)'),
  );
  checks.push(aheadOfPeers(summary, 'succession', 'successionP50Ms', 'succession p50 ahead of (below) every peer'));
  checks.push(aheadOfPeers(summary, 'succession', 'successionP99Ms', 'succession p99 ahead of (below) every peer'));
  const rows = summary.scenarios.flatMap((table) => table.rows);
  const lost = rows.reduce((sum, row) => sum + (row.lostUpdates ?? 0), 0);
  checks.push({ target: 'no lost updates on the hot key (any contender)', measured: `${lost} lost`, met: lost === 0 });
  // Within its wait bound: every contender gives up after GIVE_UP_MS, so a failed call is one past it.
  const failed = (mine: boolean) => rows.filter((row) => row.id.startsWith(PRODUCT) === mine && row.failures > 0);
  const peersFailed = failed(false)
    .map((row) => `${row.name} ${row.failures}`)
    .join(', ');
  const oursFailed = failed(true).reduce((sum, row) => sum + row.failures, 0);
  checks.push({
    target: 'every lockweave caller gets the lock within its wait bound (no failed call, any scenario)',
    measured: `${oursFailed} failed${peersFailed ? `; peers: ${peersFailed} failed` : ''}`,
    met: oursFailed === 0,
  });
  for (const c of summary.compile ?? []) {
    const wove = c.times.wovenMethods === c.taggedMethods && !c.times.pluginError;
    const own = c.share ? `; lockweave's own code ${shareText(c.share)} of a profiled build's CPU` : '';
    const measured = `${c.ratio.toFixed(3)} × (CPU time ${c.cpuRatio.toFixed(3)} ×; re-reading the tagged files' JSDoc alone: ${c.floorRatio.toFixed(3)} ×${own})`;
    checks.push({
      target: `compile time, ${describeShape(c.shape)}: tspc + plugin ≤ ${c.shape.maxRatio.toFixed(2)} × plain tspc`,
      measured: wove
        ? measured
        : `${measured}, but the plugin wove ${c.times.wovenMethods} of ${c.taggedMethods}${c.times.pluginError ? ' (it failed)' : ''}`,
      met: wove ? c.ratio <= c.shape.maxRatio : undefined,
    });
  }
  if (summary.weave) {
    const { ratio, woven } = summary.weave;
    checks.push({
      target: 'woven method ≤ 1.05 × hand-written try/finally (MemoryLockStore)',
      measured: woven ? `${ratio.toFixed(3)} ×` : 'not measurable: the transformer did not weave the tagged method',
      met: woven ? ratio <= 1.05 : undefined,
    });
  }
  return checks;
}
