// How much work each part of the bench does. BENCH_QUICK=1 is a smoke run (about a minute):
// same code paths, fewer repetitions and iterations, so its numbers are only indicative.
export interface BenchConfig {
  readonly quick: boolean;
  /** Repetitions of every (scenario, contender) run; the order of contenders alternates between them. */
  readonly reps: number;
  readonly uncontended: { readonly callers: number; readonly iterations: number };
  readonly hotKey: { readonly callers: number; readonly iterations: number };
  readonly succession: { readonly callers: number; readonly iterations: number };
  readonly multiProcess: {
    readonly processes: number;
    readonly callersPerProcess: number;
    readonly iterations: number;
  };
  /** Warm-up iterations per caller before a measured run (JIT, connections, script caches). */
  readonly warmupIterations: number;
  /** Runs of each build of each project shape (the shapes: bench/compile/shapes.ts). */
  readonly compile: { readonly runs: number };
  readonly weave: { readonly batches: number; readonly callsPerBatch: number };
  /** A measured run that takes longer is cut short (and flagged); a child that takes longer still is killed. */
  readonly runDeadlineMs: number;
}

export function benchConfig(quick: boolean, reps?: number): BenchConfig {
  const config: BenchConfig = quick
    ? {
        quick,
        reps: 2,
        uncontended: { callers: 64, iterations: 20 },
        hotKey: { callers: 16, iterations: 8 },
        succession: { callers: 16, iterations: 8 },
        multiProcess: { processes: 4, callersPerProcess: 4, iterations: 6 },
        warmupIterations: 5,
        compile: { runs: 1 },
        weave: { batches: 4, callsPerBatch: 2_000 },
        runDeadlineMs: 20_000,
      }
    : {
        quick,
        // 7 repetitions and 400 sections per caller: shorter uncontended runs (~0.15 s) swung by
        // ±20% from one repetition to the next on this 2-core machine. The hot-key runs were as
        // short (400 sections, 320 across processes, after 20 per caller to warm up) and measured
        // mostly the JIT: lockweave made 0.66× the floor across processes there, 0.95× in 6,400
        // sections. They now run about a second each, after about half a second of warm-up.
        reps: 7,
        uncontended: { callers: 64, iterations: 400 },
        hotKey: { callers: 16, iterations: 150 },
        succession: { callers: 16, iterations: 150 },
        multiProcess: { processes: 4, callersPerProcess: 4, iterations: 100 },
        warmupIterations: 100,
        compile: { runs: 5 },
        weave: { batches: 20, callsPerBatch: 20_000 },
        runDeadlineMs: 60_000,
      };
  return reps ? { ...config, reps } : config;
}
