// Code given as code, not as a file — on stdin or with -e — to a process whose preload (-r,
// NODE_OPTIONS) loaded lockweave's runtime before that code was known: Node reads stdin only after
// the preloads ran, and ts-node runs `-r` before it adds its command to execArgv. The code does not
// load the runtime again, and its unwoven tagged method calls nothing of lockweave. On Node 22, 24
// and 26, and under ts-node without ts-patch's compiler, it is refused when it is handed over, before
// the tagged body runs; JavaScript without a tag runs, and ts-node with ts-patch's compiler weaves the
// code and the method holds its key.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import type { Ran } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES, TS_NODE, scratchRunner } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'eval-preloaded');
const NODES = NODE_LINES;
const REFUSED =
  /lockweave: [^\n]*(code given with -e, -p or on stdin holds @redisLock tags|ts-node compiled the code)[^\n]*Write the code to a file and start it with a route/;

const scratch = routeScratch('routes', 'eval-preloaded');
const run = scratchRunner(scratch, 3);

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

const source = (file: string): string => fs.readFileSync(path.join(scratch.dir, file), 'utf8');

function refused(t: import('ava').ExecutionContext, result: Ran, way: string): void {
  t.not(result.status, 0, `${way}: ${result.output}`);
  t.regex(result.output, REFUSED, way);
  t.notRegex(result.output, /BODY RAN|RESULT/, way);
}

for (const [nodeName, node] of Object.entries(NODES)) {
  test(`${nodeName}, the runtime preloaded with -r or NODE_OPTIONS, tagged TypeScript on stdin: refused before the tagged body runs`, async (t) => {
    const ways: Record<string, () => Promise<Ran>> = {
      '-r ./setup.cjs --input-type=commonjs-typescript < app.cts': () =>
        run(node, ['-r', './setup.cjs', '--input-type=commonjs-typescript'], { stdin: 'app.cts' }),
      '-r ./setup.cjs --input-type=module-typescript < app.mts': () =>
        run(node, ['-r', './setup.cjs', '--input-type=module-typescript'], { stdin: 'app.mts' }),
      '-r ./setup.cjs - < app.cts': () =>
        run(node, ['-r', './setup.cjs', '--input-type=commonjs-typescript', '-'], { stdin: 'app.cts' }),
      'NODE_OPTIONS="-r ./setup.cjs" --input-type=commonjs-typescript < app.cts': () =>
        run(node, ['--input-type=commonjs-typescript'], {
          stdin: 'app.cts',
          env: { NODE_OPTIONS: '-r ./setup.cjs' },
        }),
    };
    for (const [way, start] of Object.entries(ways)) refused(t, await start(), way);
  });

  test(`${nodeName}, the runtime preloaded with -r, JavaScript without a tag on stdin: runs`, async (t) => {
    const result = await run(node, ['-r', './setup.cjs', '--input-type=commonjs'], { stdin: 'plain.txt' });
    t.is(result.status, 0, result.output);
    t.regex(result.stdout, /RESULT ran/);
  });
}

test("ts-node without ts-patch's compiler, the runtime preloaded with -r or NODE_OPTIONS, tagged code with -e or on stdin: refused before the tagged body runs", async (t) => {
  const env = { TS_NODE_PROJECT: path.join(scratch.dir, 'tsconfig.ts-node-plain.json') };
  const node = NODES['Node 24'];
  const ways: Record<string, () => Promise<Ran>> = {
    'ts-node -r ./setup.cjs -e': () => run(node, [TS_NODE, '-r', './setup.cjs', '-e', source('app.cts')], { env }),
    'ts-node -r ./setup.cjs < app.cts': () => run(node, [TS_NODE, '-r', './setup.cjs'], { stdin: 'app.cts', env }),
    'NODE_OPTIONS="-r ./setup.cjs" ts-node -e': () =>
      run(node, [TS_NODE, '-e', source('app.cts')], { env: { ...env, NODE_OPTIONS: '-r ./setup.cjs' } }),
    'NODE_OPTIONS="-r ./setup.cjs" ts-node < app.cts': () =>
      run(node, [TS_NODE], { stdin: 'app.cts', env: { ...env, NODE_OPTIONS: '-r ./setup.cjs' } }),
  };
  for (const [way, start] of Object.entries(ways)) refused(t, await start(), way);
});

test("ts-node with ts-patch's compiler, the runtime preloaded with -r: its transformer weaves the code, and the method holds its key", async (t) => {
  const env = { TS_NODE_PROJECT: path.join(scratch.dir, 'tsconfig.ts-node-patched.json') };
  const node = NODES['Node 24'];
  for (const result of [
    await run(node, [TS_NODE, '-r', './setup.cjs', '-e', source('app.cts')], { env }),
    await run(node, [TS_NODE, '-r', './setup.cjs'], { stdin: 'app.cts', env }),
  ]) {
    t.is(result.status, 0, result.output);
    t.regex(result.stdout, /BODY RAN\s+RESULT LOCKED/);
  }
});
