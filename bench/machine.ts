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
    node: process.version,
    redis: redisVersion(),
    loadAverage: loadavg()
      .map((n) => n.toFixed(2))
      .join(' '),
    date: new Date().toISOString(),
  };
}
