// Facts about the machine a result came from: numbers without them cannot be compared.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';

export interface MachineFacts {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly redis: string;
  readonly loadAverage: string;
  readonly date: string;
  /** The share of the machine's CPU time its host took for other guests during the run (steal), e.g. '27%'. */
  readonly stolen?: string;
}

/**
 * CPU milliseconds (user + system) from Linux's /proc/<pid>/stat, in clock ticks of 10 ms: what
 * process `pid` has used so far (`own`: the redis-server's, read around a measured run), or what its
 * children that have ended used, theirs included (`endedChildren`: a route bench's builds and starts,
 * esbuild's Go service too). undefined where /proc is not there, or for no pid.
 */
export function processCpuMs(
  pid: number | 'self' | undefined,
  whose: 'own' | 'endedChildren' = 'own',
): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command's name, which is in parentheses and may hold spaces: utime,
    // stime, cutime and cstime are fields 14 to 17 of the whole line, 11 to 14 after the name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const at = whose === 'own' ? 11 : 13;
    return (Number(fields[at]) + Number(fields[at + 1])) * 10;
  } catch {
    return undefined;
  }
}

/** The machine's CPU time so far, in clock ticks: all of it, and what the host stole (Linux's /proc/stat). */
interface CpuTicks {
  readonly total: number;
  readonly steal: number;
}

/** undefined where /proc/stat is not there. */
export function cpuTicks(): CpuTicks | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is in user's)
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined;
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] };
  } catch {
    return undefined;
  }
}

/**
 * The share of CPU time the host stole since `start`: on a virtual machine a neighbour's load shows
 * here and nowhere else, and it slows every contender (their ratios less than their absolute figures).
 */
export function stolenSince(start: CpuTicks | undefined): string | undefined {
  const now = cpuTicks();
  if (!start || !now || now.total <= start.total) return undefined;
  return `${((100 * (now.steal - start.steal)) / (now.total - start.total)).toFixed(0)}%`;
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    return line ? line.split(':')[1].trim() : 'unknown';
  } catch {
    return 'unknown';
  }
}

function redisVersion(): string {
  try {
    return execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function machineFacts(): MachineFacts {
  return {
    cpu: cpuModel(),
    cores: availableParallelism(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    // With the flags it ran under (Node 22 with --experimental-async-context-frame is a line of its own).
    node: [process.version, ...process.execArgv].join(' '),
    redis: redisVersion(),
    loadAverage: loadavg()
      .map((n) => n.toFixed(2))
      .join(' '),
    date: new Date().toISOString(),
  };
}
