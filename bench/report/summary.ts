// From raw repetitions to the figures in the report: medians across repetitions, and ratios
// to the floor taken per repetition (same run, adjacent in time) and then their median.
import type { ContenderDescription } from '../child/jobs';
import type { ShapeTimes } from '../compile/measure-shapes';
import type { OverheadResult } from '../weave/run-overhead';
import { median, medianRatio } from '../stats';
import { SCENARIOS, type RepSample, type Samples, type ScenarioId } from '../suite';

export interface Figure {
  readonly value: number;
  /** contender ÷ floor (for throughput higher is better, for times lower is better). */
  readonly ratio: number;
}

export interface ContenderRow {
  readonly id: string;
  readonly name: string;
  readonly throughput: Figure;
  readonly p50Ms: Figure;
  readonly p99Ms: Figure;
  readonly maxMs: Figure;
  readonly successionP50Ms?: Figure;
  readonly successionP99Ms?: Figure;
  readonly lostUpdates?: number;
  readonly failures: number;
  readonly cutShort: boolean;
  /** CPU µs per section of the callers' processes, and of the redis-server: steadier than throughput on a shared machine. */
  readonly clientCpuUs?: Figure;
  readonly redisCpuUs?: Figure;
}

export interface ScenarioTable {
  readonly id: ScenarioId;
  readonly rows: ContenderRow[];
}

/** One project shape: medians of each build, and medians of per-run ratios. */
export interface CompileFigures extends ShapeTimes {
  readonly plainMs: number;
  readonly pluginMs: number;
  /** lockweave over plain tspc: what a user sees, and what the target is about. */
  readonly ratio: number;
  /** The same in CPU time, which other work on a shared machine disturbs less. */
  readonly cpuRatio: number;
  /** The build with bench/compile/reading-floor.ts: reading the tags' JSDoc alone. */
  readonly floorMs: number;
  readonly floorRatio: number;
  readonly floorCpuRatio: number;
}

export interface Summary {
  readonly contenders: ContenderDescription[];
  readonly scenarios: ScenarioTable[];
  readonly compile?: readonly CompileFigures[];
  readonly weave?: { wovenNs: number; handNs: number; ratio: number; woven: boolean };
}

function figure(
  samples: RepSample[],
  baseline: RepSample[],
  pick: (s: RepSample) => number | undefined,
): Figure | undefined {
  const values = samples.map(pick);
  if (values.some((v) => v === undefined)) return undefined;
  return {
    value: median(values as number[]),
    ratio: medianRatio(
      values as number[],
      baseline.map((s) => pick(s) ?? NaN),
    ),
  };
}

export function summarise(
  samples: Samples,
  contenders: ContenderDescription[],
  baselineId: string,
  compile: readonly ShapeTimes[] | undefined,
  weave: OverheadResult | undefined,
): Summary {
  const scenarios = (Object.keys(SCENARIOS) as ScenarioId[])
    .filter((id) => samples[id])
    .map((id) => {
      const baseline = samples[id][baselineId];
      const rows = contenders.map(({ id: contenderId, name }) => {
        const reps = samples[id][contenderId];
        const lost = reps.map((s) => s.lostUpdates);
        return {
          id: contenderId,
          name,
          throughput: figure(reps, baseline, (s) => s.throughput)!,
          p50Ms: figure(reps, baseline, (s) => s.p50Ms)!,
          p99Ms: figure(reps, baseline, (s) => s.p99Ms)!,
          maxMs: figure(reps, baseline, (s) => s.maxMs)!,
          successionP50Ms: figure(reps, baseline, (s) => s.successionP50Ms),
          successionP99Ms: figure(reps, baseline, (s) => s.successionP99Ms),
          lostUpdates: lost.some((l) => l === undefined) ? undefined : lost.reduce((a, b) => a! + b!, 0),
          failures: reps.reduce((sum, s) => sum + s.failures, 0),
          cutShort: reps.some((s) => s.cutShort),
          clientCpuUs: figure(reps, baseline, (s) => s.clientCpuUs),
          redisCpuUs: figure(reps, baseline, (s) => s.redisCpuUs),
        };
      });
      return { id, rows };
    });
  return {
    contenders,
    scenarios,
    compile: compile?.map((shape) => {
      const { plain, floor, plugin } = shape.times.ms;
      return {
        ...shape,
        plainMs: median(plain),
        pluginMs: median(plugin),
        ratio: medianRatio(plugin, plain),
        cpuRatio: medianRatio(shape.times.cpuMs.plugin, shape.times.cpuMs.plain),
        floorMs: median(floor),
        floorRatio: medianRatio(floor, plain),
        floorCpuRatio: medianRatio(shape.times.cpuMs.floor, shape.times.cpuMs.plain),
      };
    }),
    weave: weave && {
      wovenNs: median(weave.wovenNsPerCall),
      handNs: median(weave.handNsPerCall),
      ratio: medianRatio(weave.wovenNsPerCall, weave.handNsPerCall),
      woven: weave.woven,
    },
  };
}
