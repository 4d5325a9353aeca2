// Runs test/runtime/programs/hot-key-callers.js — one process of several taking turns on one hot
// key — against the fixture's Redis, and returns what it reports.
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
