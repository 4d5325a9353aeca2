// Where things are, whether the bench runs compiled (bench/.tmp/build/bench/…) or from source.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

function findRepoRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'lockweave') return dir;
  }
  throw new Error(`cannot find the lockweave repository above ${from}`);
}

export const REPO_ROOT = findRepoRoot(__dirname);
export const BENCH_DIR = join(REPO_ROOT, 'bench');
export const TMP_DIR = join(BENCH_DIR, '.tmp');
export const TRANSFORMER_ENTRY = join(REPO_ROOT, 'dist', 'transformer', 'index.js');

/**
 * Writes a run's result files (name → text) where they belong: bench/, or bench/.tmp/quick/ for a
 * quick run, whose numbers are only a smoke test and never replace a full run's. Logs what it wrote.
 */
export function writeResults(quick: boolean, files: Record<string, string>, log: (line: string) => void): void {
  const outDir = quick ? join(TMP_DIR, 'quick') : BENCH_DIR;
  mkdirSync(outDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(outDir, name), text);
  log(`wrote ${relative(REPO_ROOT, outDir)}/${Object.keys(files).join(' and ')}`);
}
