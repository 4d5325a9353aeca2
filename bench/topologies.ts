// `npm run bench`, part 2: lockweave on each client and topology it supports, beside the floor on
// one Redis (issue #9) and, on each topology, what else runs there: the floor on the same Cluster
// and the peers that lock on a Cluster or on Redlock's primaries. scripts/bench.sh runs this compiled, on Node 24, after the headline.
//
// It starts one redis-server (the floor, lockweave on ioredis, node-redis and GLIDE, and every
// scenario's body), a Redis Cluster of 3 primaries + 3 replicas, and 3 independent primaries for
// Redlock, all on loopback; runs the Redis scenarios of the headline with the contenders of
// TOPOLOGY_IDS in alternating order; and writes bench/results-topologies.md. What it shows is what
// a topology costs the lock — more servers to ask, more hops — on one machine: on a network the
// round trips weigh more, and a Cluster's shards spread over machines gain what this one cannot.
// BENCH_QUICK=1: a smoke run (bench/.tmp/quick/). BENCH_TOPOLOGY_REPS=n: repetitions (default 3).
// BENCH_CONTENDERS=a,b: those contenders only, beside the floor (for working on one topology; the
// results are then printed, not written).
import { startPrimaries, stopPrimaries } from '../test/helpers/redis-primaries';
import { startRedisCluster } from '../test/helpers/redis-cluster';
import { startRedisServer } from '../test/helpers/redis-server';
import { runJob } from './child/spawn-child';
import { benchConfig } from './config';
import { BASELINE_ID, TOPOLOGY_IDS } from './contenders';
import { cpuTicks, machineFacts, stolenSince } from './machine';
import { writeResults } from './paths';
import { summarise, type ContenderRow, type Summary } from './report/summary';
import { CORE_SCENARIOS, runSuite } from './suite';

const log = (line: string) => console.log(line);

async function main(): Promise<void> {
  const quick = process.env.BENCH_QUICK === '1';
  const config = benchConfig(quick, Number(process.env.BENCH_TOPOLOGY_REPS) || (quick ? 1 : 3));
  const startTicks = cpuTicks();
  const machine = machineFacts();
  const startedAt = Date.now();
  log(`lockweave bench, topologies: node ${machine.node}, redis ${machine.redis}, ${config.reps} reps`);
  const wanted = process.env.BENCH_CONTENDERS?.split(',');
  const ids = wanted ? TOPOLOGY_IDS.filter((id) => id === BASELINE_ID || wanted.includes(id)) : TOPOLOGY_IDS;
  const contenders = (await runJob({ kind: 'describe' }, 'described', 30_000)).contenders.filter((c) =>
    ids.includes(c.id),
  );
  const [single, cluster, primaries] = await Promise.all([startRedisServer(), startRedisCluster(), startPrimaries(3)]);
  let summary: Summary;
  try {
    // The children (fork) inherit the environment: the topology contenders read their servers here.
    process.env.BENCH_CLUSTER_URLS = cluster.urls.join(',');
    process.env.BENCH_REDLOCK_URLS = primaries.urls.join(',');
    const samples = await runSuite(config, single.url, ids, log, { among: CORE_SCENARIOS });
    summary = summarise(samples, contenders, BASELINE_ID, undefined, undefined);
  } finally {
    await Promise.all([single.stop(), cluster.stop(), stopPrimaries(primaries)]);
  }
  const markdown = render(
    summary,
    { ...machine, stolen: stolenSince(startTicks) },
    config.reps,
    quick,
    Date.now() - startedAt,
  );
  log('');
  log(markdown);
  if (!wanted) writeResults(quick, { 'results-topologies.md': markdown }, log);
}

function render(
  summary: Summary,
  machine: ReturnType<typeof machineFacts>,
  reps: number,
  quick: boolean,
  tookMs: number,
): string {
  const row = (scenario: string, id: string): ContenderRow | undefined =>
    summary.scenarios.find((table) => table.id === scenario)?.rows.find((r) => r.id === id);
  const cell = (scenario: string, id: string, p99: boolean): string => {
    const r = row(scenario, id);
    if (!r) return '—';
    const bad = r.failures || r.lostUpdates ? ` (${r.failures} failed, ${r.lostUpdates ?? 0} lost)` : '';
    return `${r.throughput.ratio.toFixed(2)}× · ${r.throughput.value.toFixed(0)}/s${p99 ? ` · p99 ${r.p99Ms.value.toFixed(1)} ms` : ''}${bad}`;
  };
  const succession = (id: string) => {
    const r = row('succession', id);
    return r?.successionP50Ms
      ? `${r.successionP50Ms.value.toFixed(2)} / ${r.successionP99Ms!.value.toFixed(2)} ms`
      : '—';
  };
  const out: string[] = [];
  out.push(`# lockweave on each topology${quick ? ' (BENCH_QUICK smoke run: indicative only)' : ''}`);
  out.push('');
  out.push(
    'Produced by `npm run bench` (bench/topologies.ts). The scenarios of [results.md](results.md); each cell is throughput × the',
  );
  out.push(
    'floor (a hand-written `SET NX PX` + compare-and-delete on the single Redis) measured in the same repetition, then',
  );
  out.push(
    'sections per second and, where the issue sets a target for the single Redis, p99 per section. The lock moves to the',
  );
  out.push(
    'topology; the body (GET+SET of a counter on the hot key) stays on the single Redis. Every server runs on this',
  );
  out.push(
    'machine, on loopback: a topology costs here what its extra round trips and servers cost one 2-core machine.',
  );
  out.push('');
  out.push('| contender | S1 uncontended | S2 hot key | S3 hot key, processes | succession p50 / p99 |');
  out.push('|---|---|---|---|---|');
  for (const contender of summary.contenders) {
    out.push(
      `| ${contender.name} | ${cell('uncontended', contender.id, false)} | ${cell('hot-key', contender.id, true)} | ${cell('multi-process', contender.id, true)} | ${succession(contender.id)} |`,
    );
  }
  out.push('');
  // Each topology read against what runs on it too: the floor through the same client or on the
  // same Cluster, and the peers that lock there. Ratios of sections per second, same repetitions.
  const against = (id: string, baseline: string): string => {
    const ratio = (scenario: string) => {
      const mine = row(scenario, id)?.throughput.value;
      const theirs = row(scenario, baseline);
      // Against a contender whose calls failed, a ratio of sections per second says nothing.
      if (theirs?.failures) return `— (${theirs.failures} of theirs failed)`;
      return mine && theirs?.throughput.value ? `${(mine / theirs.throughput.value).toFixed(2)}×` : '—';
    };
    return `S1 ${ratio('uncontended')}, S2 ${ratio('hot-key')}, S3 ${ratio('multi-process')}`;
  };
  const nameOf = (id: string) => summary.contenders.find((contender) => contender.id === id)?.name ?? id;
  const READINGS: Array<[string, string]> = [
    ['lockweave-glide', 'floor-glide'],
    ['lockweave-cluster', 'floor-cluster'],
    ['lockweave-cluster', 'redlock-universal-cluster'],
    ['lockweave-glide-cluster', 'floor-cluster'],
    ['lockweave-node-redis-cluster', 'floor-cluster'],
    ['lockweave-redlock', 'redlock-v4-primaries'],
    ['lockweave-redlock', 'sesamecare-redlock-primaries'],
    ['lockweave-redlock', 'redlock-universal-primaries'],
  ];
  out.push('Each read against the same topology (throughput ratio, same repetitions):');
  out.push('');
  out.push('| contender | against | ratio |');
  out.push('|---|---|---|');
  for (const [id, baseline] of READINGS) {
    if (row('uncontended', id) && row('uncontended', baseline))
      out.push(`| ${nameOf(id)} | ${nameOf(baseline)} | ${against(id, baseline)} |`);
  }
  out.push('');
  out.push('Settings:');
  out.push('');
  for (const contender of summary.contenders) out.push(`- **${contender.name}**: ${contender.settings}`);
  out.push('');
  out.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, redis-server ${machine.redis}; load average at the start ${machine.loadAverage}; CPU stolen by the host during the run ${machine.stolen ?? 'not read'}; ${machine.date.slice(0, 10)}; medians of ${reps} repetitions; took ${(tookMs / 1000).toFixed(0)} s.`,
  );
  out.push('');
  return out.join('\n');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
