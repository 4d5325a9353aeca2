// The runs route tests make in their scratch folder (route-scratch.ts), with its redis-server: a
// command fed a file of the folder on its standard input (code given as code, not as a file), and
// jest over a copied fixture app with a cache directory of its own (so a second run is a warm one).
import * as path from 'node:path';
import { childRunner, type Ran } from './child-process';
import { ROOT } from './fixture-projects';
import type { RouteScratch } from './route-scratch';

export type ScratchRun = (
  binary: string,
  args: string[],
  options?: { stdin?: string; env?: Record<string, string> },
) => Promise<Ran>;

/**
 * `binary args…` in the scratch folder (or `dir`, an app copied into it), with REDIS_URL its server,
 * a woven-file cache of its own and no colours in what it prints; `stdin` (a file of the folder) as
 * its standard input when given. `concurrency` runs at once.
 */
export function scratchRunner(scratch: RouteScratch, concurrency: number, dir = scratch.dir): ScratchRun {
  const runChild = childRunner(concurrency);
  return (binary, args, options = {}) => {
    const env = {
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      REDIS_URL: scratch.redis().url,
      LOCKWEAVE_CACHE_DIR: path.join(dir, '.cache'),
      ...options.env,
    };
    if (!options.stdin) return runChild(binary, args, { cwd: dir, env });
    // The shell feeds the file: childRunner's children read no input.
    return runChild('/bin/sh', ['-c', '"$@" < "$STDIN_FILE"', 'sh', binary, ...args], {
      cwd: dir,
      env: { ...env, STDIN_FILE: options.stdin },
    });
  };
}

/** The Node lines a route test runs its command on, by the name its tests say: the devDependencies' binaries. */
export const NODE_LINES = {
  'Node 22': path.join(ROOT, 'node_modules', 'node22', 'bin', 'node'),
  'Node 24': path.join(ROOT, 'node_modules', 'node24', 'bin', 'node'),
  'Node 26': path.join(ROOT, 'node_modules', 'node26', 'bin', 'node'),
} as const;

/** ts-node's command. */
export const TS_NODE = path.join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');

const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const NODE24 = NODE_LINES['Node 24'];

/** jest on Node 24 in the scratch folder's `app`, with `config`, one run at a time, its cache in the folder. */
export function scratchJest(scratch: RouteScratch): (config: string) => Promise<Ran> {
  const runChild = childRunner(1);
  return (config) =>
    runChild(
      NODE24,
      [JEST, '-c', config, '--ci', '--colors=false', '--cacheDirectory', path.join(scratch.dir, '.jest-cache')],
      { cwd: path.join(scratch.dir, 'app'), env: { REDIS_URL: scratch.redis().url, FORCE_COLOR: '0' } },
    );
}
