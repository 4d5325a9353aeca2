/** Prefix of the line report-cpu.ts prints as a timed tspc exits; time-compile.ts reads it. */
export const CPU_MARK = 'lockweave-bench-cpu-us=';
