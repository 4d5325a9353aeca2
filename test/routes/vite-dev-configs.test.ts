// vite's dev server keeps its process up: a tsconfig written while it runs is read at the next load
// of a woven module, as a fresh start reads it. vite itself transforms every module again when a
// tsconfig.json is written; a tsconfig.build.json beside it, with another entry, must do the same.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES, scratchRunner } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'vite-dev-configs');
const scratch = routeScratch('routes', 'vite-dev-configs');
const run = scratchRunner(scratch, 1);

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

test("vite's dev server: a tsconfig.build.json with another entry written while it runs refuses the next load, as a fresh start does", async (t) => {
  const ran = await run(NODE_LINES['Node 24'], ['dev.mjs'], { env: { LOCKWEAVE_CACHE: 'off' } });
  t.is(ran.status, 0, ran.output);
  t.regex(ran.stdout, /^ACQUIRED shop:payOrder_V1$/m);
  t.regex(
    ran.stdout,
    /REFUSED .*tsconfig\.json \(\{"prefix":"shop:"\}\) and .*tsconfig\.build\.json \(\{"prefix":"sib:"\}\) differ/,
  );
  // One lock, the first call's: none under the old entry after the write, none under the new one.
  t.is(ran.stdout.match(/^ACQUIRED /gm)?.length, 1, ran.stdout);
});
