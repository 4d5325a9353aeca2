// Runs test/runtime/programs/hot-key-callers.js — one process of several taking turns on one hot
// key — against the fixture's Redis, and returns what it reports.
import type { ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CallerReport {
  family: string;
  sections: number;
  failed: number;
  maxWaitMs: number;
  otherErrors: string[];
}

/** argv: family businessFlag key callers runMs retries waitTime counterKey (see the program). */
export function runHotKeyCallers(redisUrl: string, args: string[]): Promise<CallerReport> {
  const child = spawn(process.execPath, [join(__dirname, 'programs', 'hot-key-callers.js'), ...args], {
    env: { ...process.env, REDIS_URL: redisUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (data) => (out += data));
  return new Promise((resolve, reject) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(killer);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()!) as CallerReport);
      else reject(new Error(`hot-key-callers exited ${code}: ${out}`));
    });
  });
}

/**
 * The verdict both tests give on a run: no call failed, no section overlapped another (the
 * counter, which only the lock protects, equals the sections), and each process got at least half
 * the share of the busiest one.
 */
export function assertTookTurns(t: ExecutionContext, reports: readonly CallerReport[], counter: number): void {
  const summary = reports
    .map((r) => `${r.family}: ${r.sections} sections, ${r.failed} failed, max wait ${r.maxWaitMs} ms`)
    .join('; ');
  t.deepEqual(
    reports.map((r) => r.otherErrors),
    reports.map(() => []),
  );
  t.deepEqual(
    reports.map((r) => r.failed),
    reports.map(() => 0),
    summary,
  );
  const sections = reports.map((r) => r.sections);
  t.is(
    counter,
    sections.reduce((a, b) => a + b),
    `no section overlapped another: ${summary}`,
  );
  t.true(Math.min(...sections) >= Math.max(...sections) / 2, `shares: ${summary}`);
  t.log(summary);
}
