// A folder of test/.tmp (gitignored) for one test process's files: its name carries the process's
// id. Two ava runs at once (scripts/test-all.sh runs two side by side; a contributor may run a file
// while CI runs) then never write a folder the other is reading — a fixed name let one run's tspc
// rewrite the examples another run's children were loading. Woven code in it still resolves
// `lockweave` up the tree (test/.tmp/node_modules, fixture-projects.ts's linkPackage). The folder is
// removed when the process exits.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const TEST_TMP = join(resolve(__dirname, '..'), '.tmp');

export function processScratch(name: string): string {
  const dir = join(TEST_TMP, `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
