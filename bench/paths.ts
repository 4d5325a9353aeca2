// Where things are, whether the bench runs compiled (bench/.tmp/build/bench/…) or from source.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
