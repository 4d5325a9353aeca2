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
  /** S4: the hot key from processes of one caller each, the shape of most server deployments. */
  readonly oneCaller: { readonly processes: number; readonly iterations: number };
  /** How long each child runs the scenario before its measured run (JIT, connections, script caches). */
  readonly warmupMs: number;
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
        oneCaller: { processes: 4, iterations: 6 },
        warmupMs: 100,
        compile: { runs: 1 },
        weave: { batches: 4, callsPerBatch: 2_000 },
        runDeadlineMs: 20_000,
      }
    : {
        quick,
        // 7 repetitions: uncontended runs of ~0.15 s swung by ±20% from one repetition to the next
        // on this 2-core machine. The hot-key runs were as short (400 sections, 320 across
        // processes, after 20 per caller to warm up) and measured mostly the JIT: lockweave made
        // 0.66× the floor across processes there, 0.95× in 6,400 sections. They now run about a
        // second each.
        reps: 7,
        // S1 measures 1,000 sections a caller. Every run warms up for 1.5 s first, every contender
        // alike: after 100 sections a caller (about 0.1 s uncontended, 0.4 s on the hot key)
        // lockweave was measured on its way up. Four rounds of 400 uncontended after that warm-up,
        // six processes each, went 48k, 58k, 73k, 66k sections/s (medians) on 2026-11-26, the
        // floor's 53k, 58k, 59k, 62k; on Node 22 the hot key's p99 in the first round after it was
        // 20 ms, 7 ms in the next. lockweave's path is longer than the floor's, and V8 takes
        // longer to compile it to its fastest; a server runs long past that.
        uncontended: { callers: 64, iterations: 1_000 },
        hotKey: { callers: 16, iterations: 150 },
        succession: { callers: 16, iterations: 150 },
        multiProcess: { processes: 4, callersPerProcess: 4, iterations: 100 },
        oneCaller: { processes: 8, iterations: 100 },
        warmupMs: 1_500,
        compile: { runs: 5 },
        weave: { batches: 20, callsPerBatch: 20_000 },
        runDeadlineMs: 60_000,
      };
  return reps ? { ...config, reps } : config;
}
