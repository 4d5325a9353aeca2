// Runs processes of test/runtime/programs/ — hot-key-callers.js (one process of several taking
// turns on one hot key) or cohort-callers.js (callers that pause between calls) — against the
// fixture's Redis, all their callers let go at once, and returns what each reports.
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

/**
 * Starts one process of `program` per entry of `argsOfEach` (the program's argv: see its header),
 * lets their callers go together — each prints `ready` once connected and waits for a line on
 * stdin, so no process has the key alone while the others still load — and returns their reports.
 */
export async function runCallersTogether(
  program: 'hot-key-callers' | 'cohort-callers',
  redisUrl: string,
  argsOfEach: readonly string[][],
): Promise<CallerReport[]> {
  const children = argsOfEach.map((args) => {
    const child = spawn(process.execPath, [join(__dirname, 'programs', `${program}.js`), ...args], {
      cwd: __dirname,
      env: { ...process.env, REDIS_URL: redisUrl },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const ready = new Promise<void>((resolve) => {
      child.stdout!.on('data', (data) => {
        out += data;
        if (out.startsWith('ready\n')) resolve();
      });
    });
    const report = new Promise<CallerReport>((resolve, reject) => {
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.once('exit', (code) => {
        clearTimeout(killer);
        if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()!) as CallerReport);
        else reject(new Error(`${program} exited ${code}: ${out}`));
      });
    });
    return { child, ready: Promise.race([ready, report.then(() => undefined)]), report };
  });
  try {
    await Promise.all(children.map(({ ready }) => ready));
  } catch (error) {
    // One could not start: the others would wait for their line until killed.
    for (const { child } of children) child.kill('SIGKILL');
    throw error;
  }
  for (const { child } of children) child.stdin!.end('go\n');
  return Promise.all(children.map(({ report }) => report));
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
