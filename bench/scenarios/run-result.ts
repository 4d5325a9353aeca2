// What one measured run reports back to the parent.
export interface RunResult {
  /** Critical sections that completed. */
  readonly sections: number;
  /** Lock calls that rejected (a contender gave up): must be 0. */
  readonly failures: number;
  /** True when the run hit its deadline before every caller finished. */
  readonly cutShort: boolean;
  /** Wall time of the measured part; with epoch bounds so runs in several processes can be joined. */
  readonly wallMs: number;
  readonly startEpochMs: number;
  readonly endEpochMs: number;
  /** Per critical section: from calling lock() to its promise settling (wait + body + release). */
  readonly latenciesMs: number[];
  /** Succession scenario only: a holder's body end → the next waiter's body start. */
  readonly successionsMs?: number[];
  /** Hot-key scenarios: the counter the bodies incremented, read after the run. */
  readonly counter?: number;
  /** CPU microseconds (user + system) of the callers' process(es) during the measured part. */
  readonly cpuUs?: number;
  /** The same of the redis-server, when the job named its pid. */
  readonly redisCpuUs?: number;
}

/** Wall-clock time with sub-millisecond resolution, comparable across processes on one machine. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}
