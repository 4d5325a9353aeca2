// TypeScript given to Node as code, not as a file — with -e, -p or on stdin — passes no load hook,
// so no route weaves it, lockweave/register as the first preload included. Each way of giving it on
// Node 22, 24 and 26 (Node's stripping by --input-type or by itself, through tsx's command, ts-node
// without ts-patch's compiler) is refused before the tagged body runs — when lockweave/register
// loads, or the runtime, whichever comes first, since such code need not load the runtime — and
// names the fix; JavaScript so given without a tag, code so given that imports a tagged file under
// lockweave/register, and ts-node's eval with ts-patch's compiler run, and lock.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import type { Ran } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES, TS_NODE, scratchRunner } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'eval');
const NODES = NODE_LINES;
const TSX_CLI = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const REFUSED =
  /lockweave: [^\n]*(code given with -e, -p or on stdin|tsx compiled the code|ts-node compiled the code)[^\n]*Write the code to a file and start it with a route/;

const scratch = routeScratch('routes', 'eval');
const run = scratchRunner(scratch, 3);

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

const source = (file: string): string => fs.readFileSync(path.join(scratch.dir, file), 'utf8');

function refused(t: import('ava').ExecutionContext, result: Ran): void {
  t.not(result.status, 0, result.output);
  t.regex(result.output, REFUSED);
  t.notRegex(result.output, /RESULT/);
}

for (const [nodeName, node] of Object.entries(NODES)) {
  const ways: Record<string, () => Promise<Ran>> = {
    'node --import lockweave/register --input-type=module-typescript < app.mts': () =>
      run(node, ['--import', 'lockweave/register', '--input-type=module-typescript'], { stdin: 'app.mts' }),
    'node --import lockweave/register -e "<app.mts>" (Node tells TypeScript itself)': () =>
      run(node, ['--import', 'lockweave/register', '-e', source('app.mts')]),
    'node --require lockweave/register --input-type=commonjs-typescript -e "<app.cts>"': () =>
      run(node, ['--require', 'lockweave/register', '--input-type=commonjs-typescript', '-e', source('app.cts')]),
    'node --input-type=module-typescript < app.mts (no route)': () =>
      run(node, ['--input-type=module-typescript'], { stdin: 'app.mts' }),
    'node -e "<app.mts>" extra.ts (an argument after the code)': () => run(node, ['-e', source('app.mts'), 'extra.ts']),
    'NODE_OPTIONS="--import lockweave/register" tsx < app.mts': () =>
      run(node, [TSX_CLI], { stdin: 'app.mts', env: { NODE_OPTIONS: '--import lockweave/register' } }),
    'tsx -e "<app.cts>" (tsx compiles it, dropping its comments)': () => run(node, [TSX_CLI, '-e', source('app.cts')]),
    // Code that never loads the runtime: lockweave/register, the first preload, is all there is to refuse it.
    'node --import lockweave/register --input-type=module-typescript < alone.mts (no runtime loaded)': () =>
      run(node, ['--import', 'lockweave/register', '--input-type=module-typescript'], { stdin: 'alone.mts' }),
    'node --import lockweave/register -e "<alone.mts>" (no runtime loaded)': () =>
      run(node, ['--import', 'lockweave/register', '-e', source('alone.mts')]),
    'node --require lockweave/register --input-type=commonjs-typescript < alone.cts (no runtime loaded)': () =>
      run(node, ['--require', 'lockweave/register', '--input-type=commonjs-typescript'], { stdin: 'alone.cts' }),
    'NODE_OPTIONS="--import lockweave/register" node -p "<alone.cts>" (no runtime loaded)': () =>
      run(node, ['--input-type=commonjs-typescript', '-p', source('alone.cts')], {
        env: { NODE_OPTIONS: '--import lockweave/register' },
      }),
  };
  for (const [way, start] of Object.entries(ways)) {
    test(`${nodeName}, ${way}: refused before the tagged body runs, naming the fix`, async (t) => {
      refused(t, await start());
    });
  }

  test(`${nodeName}, JavaScript without a tag given with -e and on stdin loads the runtime and runs`, async (t) => {
    const code = "require('lockweave/runtime'); console.log('RESULT ran');";
    const given = await run(node, ['--input-type=commonjs', '-e', code]);
    t.is(given.status, 0, given.output);
    t.regex(given.stdout, /RESULT ran/);
    fs.writeFileSync(path.join(scratch.dir, 'plain.cjs.txt'), code);
    const piped = await run(node, ['--input-type=commonjs'], { stdin: 'plain.cjs.txt' });
    t.is(piped.status, 0, piped.output);
    t.regex(piped.stdout, /RESULT ran/);
  });

  test(`${nodeName}, code given with -e that imports a tagged file under lockweave/register: the method holds its key`, async (t) => {
    const code =
      "import { OrderService } from './pay.ts'; const { configure } = await import('lockweave/runtime'); " +
      "configure({ redis: process.env.REDIS_URL }); const result: string = await new OrderService().pay('E2'); " +
      "console.log('RESULT', result); process.exit(0);";
    const result = await run(node, ['--import', 'lockweave/register', '--input-type=module-typescript', '-e', code]);
    t.is(result.status, 0, result.output);
    t.regex(result.stdout, /RESULT LOCKED/);
  });
}

test("ts-node -e and stdin without ts-patch's compiler: refused before the tagged body runs", async (t) => {
  const env = { TS_NODE_PROJECT: path.join(scratch.dir, 'tsconfig.ts-node-plain.json') };
  refused(t, await run(NODES['Node 24'], [TS_NODE, '-e', source('app.cts')], { env }));
  refused(t, await run(NODES['Node 24'], [TS_NODE], { stdin: 'app.cts', env }));
});

test("ts-node's REPL (-i) without ts-patch's compiler, lockweave/register preloaded: a tagged class typed in is refused before its body runs", async (t) => {
  // What is typed in never loads the runtime: the preload is all there is to stop it.
  const env = { TS_NODE_PROJECT: path.join(scratch.dir, 'tsconfig.ts-node-plain.json') };
  const result = await run(NODES['Node 24'], ['-r', 'lockweave/register', TS_NODE, '-i'], { stdin: 'alone.cts', env });
  t.regex(result.output, REFUSED);
  // The REPL echoes the lines it fails on: only the body's own output counts.
  t.notRegex(result.output, /RESULT ran/);
});

test("ts-node -e and stdin with ts-patch's compiler: its transformer weaves the code, and the method holds its key", async (t) => {
  const env = { TS_NODE_PROJECT: path.join(scratch.dir, 'tsconfig.ts-node-patched.json') };
  for (const result of [
    await run(NODES['Node 24'], [TS_NODE, '-e', source('app.cts')], { env }),
    await run(NODES['Node 24'], [TS_NODE], { stdin: 'app.cts', env }),
  ]) {
    t.is(result.status, 0, result.output);
    t.regex(result.stdout, /RESULT LOCKED/);
  }
});
