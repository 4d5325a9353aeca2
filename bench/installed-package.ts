// lockweave in a generated project's node_modules, as `npm install lockweave` puts it: its
// package.json (whose exports map `lockweave/transformer`, `lockweave/register`, …) and its built
// dist, linked, so each bench builds from this checkout's code. The projects then name lockweave as
// a user's do: a plugin entry of "lockweave/transformer", which the routes read as lockweave's
// (transformer/plugin-entry.ts). A path into this repository instead (../../dist/transformer/index.js)
// is an entry the routes do not recognize: the check tspc runs for them (transformer/nearest-entry.ts)
// would then look for one in every tsconfig.json above the project — lockweave's own — which no
// user's build does.
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './paths';

export function installLockweave(projectDir: string): void {
  const installed = join(projectDir, 'node_modules', 'lockweave');
  mkdirSync(installed, { recursive: true });
  copyFileSync(join(REPO_ROOT, 'package.json'), join(installed, 'package.json'));
  symlinkSync(join(REPO_ROOT, 'dist'), join(installed, 'dist'), 'dir');
}
