// One project, every TypeScript a user may have in late 2026:
//   5.9  tspc (ts-patch 3) weaves; the run locks
//   6.0  tspc, with the project's typescript (and the ts-patch that loads it) on 6, weaves; the run locks
//   7    tsc emits the methods unlocked with exit 0 — `lockweave check` flags it, `verify` catches it —
//        and `lockweave build`, with 7 installed, weaves; the run locks
// Each run calls each tagged method 3 times at once; every body must find its key in Redis and be alone.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { TSPC } from '../helpers/tspc';
import { projectCopy, routeScratch } from '../helpers/route-scratch';

// The app fixture the command-line tests build, whose bodies check their own key (prefix CLI_).
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'cli', 'app');
const TS7_TSC = path.join(ROOT, 'node_modules', 'typescript7', 'bin', 'tsc');

const scratch = routeScratch('routes', 'typescript-versions');
const TMP = scratch.dir;

const runChild = childRunner(3);

function run(file: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return runChild(process.execPath, [file, ...args], { cwd, env: { REDIS_URL: scratch.redis().url, ...env } });
}

/** A copy of the app whose node_modules/typescript is the given package (none: the repo's 5.9). */
const project = (name: string, typescript?: string) => projectCopy(FIXTURE, path.join(TMP, name), typescript);

interface Printed {
  results: Record<string, string[]>;
  most: Record<string, number>;
}

async function runApp(dir: string, runId: string): Promise<{ ran: Ran; printed?: Printed }> {
  const ran = await run(path.join(dir, 'dist', 'main.js'), [], dir, { RUN_ID: runId });
  const last = ran.stdout.trim().split('\n').pop();
  return { ran, printed: last?.startsWith('{') ? (JSON.parse(last) as Printed) : undefined };
}

async function assertLocks(t: import('ava').ExecutionContext, dir: string, runId: string): Promise<void> {
  const { ran, printed } = await runApp(dir, runId);
  t.is(ran.status, 0, ran.output);
  for (const site of ['pay', 'ship']) {
    t.is(printed?.results[site].length, 3, site);
    for (const token of printed?.results[site] ?? [])
      t.regex(token, /^[0-9a-f-]{36}$/, `${site}: the body found its key in Redis`);
  }
  t.deepEqual(printed?.most, { pay: 1, ship: 1 }, 'one body at a time');
}

test('TypeScript 5.9: tspc weaves and the tagged methods lock', async (t) => {
  const dir = project('ts5');
  t.regex((await run(TSPC, ['-v'], dir)).stdout, /Version 5\.9\./);
  const built = await run(TSPC, ['-p', 'tsconfig.json'], dir);
  t.is(built.status, 0, built.output);
  await assertLocks(t, dir, 'ts5');
});

test("TypeScript 6.0: tspc (ts-patch loading the project's typescript 6) weaves and the tagged methods lock", async (t) => {
  const dir = project('ts6');
  // Installed as npm installs them: real directories in the project's node_modules. ts-patch loads
  // the `typescript` it resolves from its own real path, and resolves ts-patch's own package from
  // there too, so links into the repo's node_modules would find the repo's 5.9 instead.
  fs.cpSync(path.join(ROOT, 'node_modules', 'typescript6'), path.join(dir, 'node_modules', 'typescript'), {
    recursive: true,
  });
  const tsPatch = path.join(dir, 'node_modules', 'ts-patch');
  fs.cpSync(path.join(ROOT, 'node_modules', 'ts-patch'), tsPatch, { recursive: true });
  const tspc = path.join(tsPatch, 'bin', 'tspc.js');
  t.regex((await run(tspc, ['-v'], dir)).stdout, /Version 6\.0\./);
  const built = await run(tspc, ['-p', 'tsconfig.json'], dir);
  t.is(built.status, 0, built.output);
  await assertLocks(t, dir, 'ts6');
});

test('TypeScript 7: tsc emits the methods unlocked with exit 0; check flags it, verify catches it; lockweave build locks', async (t) => {
  const dir = project('ts7', 'typescript7');
  t.regex((await run(TS7_TSC, ['-v'], dir)).stdout, /Version 7\./);

  // The silent failure this guards against: the plugin entry ignored, exit 0, no lock taken.
  const tsc = await run(TS7_TSC, ['-p', 'tsconfig.json'], dir);
  t.is(tsc.status, 0, tsc.output);
  t.notRegex(fs.readFileSync(path.join(dir, 'dist', 'orders.js'), 'utf8'), /defineLock/);
  const unlocked = await runApp(dir, 'ts7-tsc');
  t.not(unlocked.ran.status, 0, 'the body does not find its key in Redis');
  t.regex(unlocked.ran.output, /CLI_payOrder_ts7-tsc-Test001 is not in Redis while the pay body runs/);

  const check = await run(CLI, ['check'], dir);
  t.is(check.status, 1, check.output);
  t.regex(
    check.output,
    /package\.json scripts\.build: tsc -p tsconfig\.json\n {4}unlocked: TypeScript 7\.\d+\.\d+'s tsc is the native compiler/,
  );
  const verify = await run(CLI, ['verify', 'dist'], dir);
  t.is(verify.status, 1, verify.output);
  t.regex(verify.output, /2 tagged methods NOT woven into dist/);

  fs.rmSync(path.join(dir, 'dist'), { recursive: true });
  const built = await run(CLI, ['build', '-p', 'tsconfig.json'], dir);
  t.is(built.status, 0, built.output);
  t.is((await run(CLI, ['verify', 'dist'], dir)).status, 0);
  await assertLocks(t, dir, 'ts7-build');
});
