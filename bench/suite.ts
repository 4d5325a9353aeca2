// The Redis scenarios: every contender, every repetition, in alternating order.
//
// Repetition r runs the contenders rotated by r, and reversed on odd r, so no contender
// always runs first (cold machine) or right after a heavy one. Each figure is later taken
// as a ratio to the floor's figure from the same repetition.
import { Redis } from 'ioredis';
import type { BenchConfig } from './config';
import { runJob } from './child/spawn-child';
import type { ScenarioKind } from './child/jobs';
import { runMultiProcess } from './scenarios/multi-process';
import type { RunResult } from './scenarios/run-result';
import { percentile } from './stats';

export type ScenarioId = 'uncontended' | 'hot-key' | 'multi-process' | 'one-caller' | 'succession';

export const SCENARIOS: Record<ScenarioId, { title: string; describe(config: BenchConfig): string }> = {
  uncontended: {
    title: 'uncontended',
    describe: (c) =>
      `${c.uncontended.callers} concurrent callers, each on its own key, empty body, ${c.uncontended.iterations} sections each`,
  },
  'hot-key': {
    title: 'hot key',
    describe: (c) =>
      `${c.hotKey.callers} callers on one key, body GET+SET of a counter, ${c.hotKey.iterations} sections each`,
  },
  'multi-process': {
    title: `hot key, processes`,
    describe: (c) =>
      `${c.multiProcess.processes} processes × ${c.multiProcess.callersPerProcess} callers on one key, body GET+SET of a counter, ${c.multiProcess.iterations} sections each`,
  },
  'one-caller': {
    title: 'hot key, one caller a process',
    describe: (c) =>
      `${c.oneCaller.processes} processes × 1 caller on one key, body GET+SET of a counter, ${c.oneCaller.iterations} sections each`,
  },
  succession: {
    title: 'succession latency',
    describe: (c) =>
      `${c.succession.callers} callers on one key, empty body, ${c.succession.iterations} sections each; holder's body end → next holder's body start`,
  },
};

/** One repetition of one scenario for one contender. */
export interface RepSample {
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The slowest section: a caller starved past the others shows here first. */
  readonly maxMs: number;
  readonly successionP50Ms?: number;
  readonly successionP99Ms?: number;
  readonly successions?: number;
  readonly sections: number;
  readonly failures: number;
  readonly cutShort: boolean;
  /** Hot-key scenarios: completed sections − final counter. */
  readonly lostUpdates?: number;
  /** CPU µs per section of the callers' process(es), and of the redis-server (when the suite was given its pid). */
  readonly clientCpuUs?: number;
  readonly redisCpuUs?: number;
}

export type Samples = Record<ScenarioId, Record<string, RepSample[]>>;

export function alternatingOrder<T>(items: readonly T[], rep: number): T[] {
  const shift = rep % items.length;
  const rotated = [...items.slice(shift), ...items.slice(0, shift)];
  return rep % 2 === 1 ? rotated.reverse() : rotated;
}

function toSample(result: RunResult): RepSample {
  return {
    throughput: result.sections / (result.wallMs / 1000),
    p50Ms: percentile(result.latenciesMs, 50),
    p99Ms: percentile(result.latenciesMs, 99),
    maxMs: result.latenciesMs.reduce((max, ms) => Math.max(max, ms), 0),
    successionP50Ms: result.successionsMs && percentile(result.successionsMs, 50),
    successionP99Ms: result.successionsMs && percentile(result.successionsMs, 99),
    successions: result.successionsMs?.length,
    sections: result.sections,
    failures: result.failures,
    cutShort: result.cutShort,
    lostUpdates: result.counter === undefined ? undefined : result.sections - result.counter,
    clientCpuUs: perSection(result.cpuUs, result.sections),
    redisCpuUs: perSection(result.redisCpuUs, result.sections),
  };
}

const perSection = (us: number | undefined, sections: number) =>
  us === undefined || sections === 0 ? undefined : us / sections;

/** The scenarios every topology and Node line runs; S4 (one-caller) runs in the headline run only. */
export const CORE_SCENARIOS: readonly ScenarioId[] = ['uncontended', 'hot-key', 'multi-process', 'succession'];

/** Of `among`, those BENCH_SCENARIOS names (comma-separated ids: for working on one), or all. */
function scenarioIds(among: readonly ScenarioId[]): ScenarioId[] {
  const wanted = process.env.BENCH_SCENARIOS?.split(',');
  return wanted ? among.filter((id) => wanted.includes(id)) : [...among];
}

export interface SuiteOptions {
  /** The redis-server's pid: its CPU per section is read too, only where every contender locks on that one server. */
  readonly redisPid?: number;
  /** The scenarios to run (before BENCH_SCENARIOS picks among them); every one by default. */
  readonly among?: readonly ScenarioId[];
}

/** Runs the scenarios against `redisUrl`. */
export async function runSuite(
  config: BenchConfig,
  redisUrl: string,
  contenderIds: readonly string[],
  log: (line: string) => void,
  { redisPid, among = Object.keys(SCENARIOS) as ScenarioId[] }: SuiteOptions = {},
): Promise<Samples> {
  const samples = {} as Samples;
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const childTimeoutMs = config.runDeadlineMs * 2 + 30_000;
  try {
    for (const scenario of scenarioIds(among)) {
      samples[scenario] = Object.fromEntries(contenderIds.map((id) => [id, [] as RepSample[]]));
      for (let rep = 0; rep < config.reps; rep++) {
        for (const contender of alternatingOrder(contenderIds, rep)) {
          const common = {
            contender,
            redisUrl,
            keyPrefix: `bench:${scenario}:${contender}:${rep}`,
            warmupMs: config.warmupMs,
            deadlineMs: config.runDeadlineMs,
            redisPid,
          };
          let result: RunResult;
          if (scenario === 'multi-process' || scenario === 'one-caller') {
            const { processes, callersPerProcess, iterations } =
              scenario === 'multi-process' ? config.multiProcess : { ...config.oneCaller, callersPerProcess: 1 };
            result = await runMultiProcess(
              { ...common, callers: callersPerProcess, iterations },
              processes,
              client,
              childTimeoutMs,
            );
          } else {
            const shape =
              scenario === 'uncontended'
                ? config.uncontended
                : scenario === 'hot-key'
                  ? config.hotKey
                  : config.succession;
            const job = { ...common, ...shape, kind: scenario as ScenarioKind };
            result = (await runJob(job, 'result', childTimeoutMs)).result;
          }
          const sample = toSample(result);
          samples[scenario][contender].push(sample);
          log(describeSample(scenario, rep, contender, sample));
        }
        // Keys of finished runs would only slow Redis's keyspace a little, but a clean slate is cheaper to reason about.
        await client.flushdb();
      }
    }
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
  return samples;
}

function describeSample(scenario: ScenarioId, rep: number, contender: string, s: RepSample): string {
  const succession =
    s.successionP50Ms === undefined
      ? ''
      : ` succession p50 ${s.successionP50Ms.toFixed(2)} ms p99 ${s.successionP99Ms!.toFixed(2)} ms (${s.successions})`;
  const lost = s.lostUpdates === undefined ? '' : ` lost ${s.lostUpdates}`;
  const bad = (s.failures ? ` FAILURES ${s.failures}` : '') + (s.cutShort ? ' CUT SHORT' : '');
  const cpu =
    (s.clientCpuUs === undefined ? '' : ` CPU ${s.clientCpuUs.toFixed(1)} µs`) +
    (s.redisCpuUs === undefined ? '' : ` Redis ${s.redisCpuUs.toFixed(1)} µs`);
  return `  ${scenario} #${rep + 1} ${contender}: ${s.throughput.toFixed(0)}/s p50 ${s.p50Ms.toFixed(2)} ms p99 ${s.p99Ms.toFixed(2)} ms max ${s.maxMs.toFixed(1)} ms${cpu}${succession}${lost}${bad}`;
}
