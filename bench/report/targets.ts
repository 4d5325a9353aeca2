// The targets, checked against the summary. A target is met, missed, or — when the
// thing it is about could not be measured (e.g. the transformer did not weave) — not checked.
import { describeShape } from '../compile/shapes';
import type { Summary, ScenarioTable } from './summary';

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}

const PRODUCT = 'lockweave';
const PRODUCT_NOT_REENTRANT = 'lockweave-not-reentrant';
const BASELINE = 'floor';

/** Our own variants are not peers to beat. */
const isPeer = (id: string) => id !== BASELINE && !id.startsWith(PRODUCT);

function rowsOf(summary: Summary, scenario: string): ScenarioTable['rows'] {
  return summary.scenarios.find((table) => table.id === scenario)?.rows ?? [];
}

function aheadOfPeers(summary: Summary, scenario: string, metric: 'throughput' | 'handoffP50Ms' | 'handoffP99Ms', label: string): TargetCheck {
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
  return { target: label, measured: `${ours.name} ${fmt(value(ours))}; best peer ${best.name} ${fmt(value(best))}`, met };
}

export function checkTargets(summary: Summary): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const uncontended = rowsOf(summary, 'uncontended').find((row) => row.id === PRODUCT);
  checks.push({
    target: 'uncontended throughput ≥ 0.90 × floor',
    measured: uncontended ? `${uncontended.throughput.ratio.toFixed(2)} ×` : 'not measured',
    met: uncontended ? uncontended.throughput.ratio >= 0.9 : undefined,
  });
  const notReentrant = rowsOf(summary, 'uncontended').find((row) => row.id === PRODUCT_NOT_REENTRANT);
  if (notReentrant) {
    checks.push({
      target: 'uncontended throughput ≥ 0.90 × floor, with reentrant=false (no AsyncLocalStorage)',
      measured: `${notReentrant.throughput.ratio.toFixed(2)} ×`,
      met: notReentrant.throughput.ratio >= 0.9,
    });
  }
  checks.push(aheadOfPeers(summary, 'hot-key', 'throughput', 'hot-key throughput ahead of every peer (one process)'));
  checks.push(aheadOfPeers(summary, 'multi-process', 'throughput', 'hot-key throughput ahead of every peer (several processes)'));
  checks.push(aheadOfPeers(summary, 'handoff', 'handoffP50Ms', 'handoff p50 ahead of (below) every peer'));
  checks.push(aheadOfPeers(summary, 'handoff', 'handoffP99Ms', 'handoff p99 ahead of (below) every peer'));
  const lost = summary.scenarios.flatMap((table) => table.rows).reduce((sum, row) => sum + (row.lostUpdates ?? 0), 0);
  checks.push({ target: 'no lost updates on the hot key (any contender)', measured: `${lost} lost`, met: lost === 0 });
  const failures = summary.scenarios.flatMap((table) => table.rows).reduce((sum, row) => sum + row.failures, 0);
  checks.push({ target: 'every caller eventually succeeds (any contender)', measured: `${failures} failed lock calls`, met: failures === 0 });
  for (const c of summary.compile ?? []) {
    const wove = c.times.wovenMethods === c.taggedMethods && !c.times.pluginError;
    const measured = `${c.ratio.toFixed(3)} × (JSDoc parsing alone ${c.jsDocRatio.toFixed(3)} ×; CPU time ${c.cpuRatio.toFixed(3)} ×)`;
    checks.push({
      target: `compile time, ${describeShape(c.shape)}: tspc + plugin ≤ ${c.shape.maxRatio.toFixed(2)} × plain tspc`,
      measured: wove ? measured : `${measured}, but the plugin wove ${c.times.wovenMethods} of ${c.taggedMethods}${c.times.pluginError ? ' (it failed)' : ''}`,
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
