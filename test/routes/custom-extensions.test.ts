// Tagged code under a name lockweave does not weave by itself, compiled as code because the build
// or the runtime says so: esbuild's and Bun.build's `loader` option, bunfig.toml's [loader], `bun -l`,
// another esbuild plugin's onLoad answering `loader: 'ts'`, ts-loader's appendTsSuffixTo, Node's
// `require` of an unknown extension (which runs it as JavaScript). Each tagged method holds its
// lock, or the build fails (the process is refused) naming the file — never a bundle or a run with
// the method unlocked. Untagged files under such names build as they always did.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import type { Ran } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';
import { scratchRunner } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'custom-extensions');
const scratch = routeScratch('routes', 'custom-extensions');
const APP_DIR = path.join(scratch.dir, 'app');
const NODE24 = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const BUN = path.join(ROOT, 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun');
const SVC_AND_UPPER = JSON.stringify({ '.svc': 'ts', '.TS': 'ts' });
const LOCKED = { pay: 'LOCK_payOrder_O1', refund: 'LOCK_refundOrder_O2' };

test.before(() => {
  fs.cpSync(FIXTURE, APP_DIR, { recursive: true });
});

const runInApp = scratchRunner(scratch, 3, APP_DIR);

function run(binary: string, args: readonly string[], env: Record<string, string> = {}): Promise<Ran> {
  return runInApp(binary, [...args], { env });
}

function printed(ran: Ran): unknown {
  return JSON.parse(ran.stdout.trim().split('\n').pop()!);
}

test('esbuild with loader { .svc: ts, .TS: ts }: both tagged methods are woven and hold their keys', async (t) => {
  const built = await run(process.execPath, ['build-esbuild.mjs'], { LOADER: SVC_AND_UPPER, OUT: 'out/esbuild' });
  t.is(built.status, 0, built.output);
  const ran = await run(process.execPath, ['out/esbuild/app.mjs']);
  t.is(ran.status, 0, ran.output);
  t.deepEqual(printed(ran), LOCKED);
});

test('esbuild compiling a tagged .svc file as tsx: the build fails naming the file and the rename, and writes nothing', async (t) => {
  const out = 'out/esbuild-tsx';
  const built = await run(process.execPath, ['build-esbuild.mjs'], {
    LOADER: JSON.stringify({ '.svc': 'tsx', '.TS': 'ts' }),
    OUT: out,
  });
  t.not(built.status, 0, built.output);
  t.regex(
    built.output,
    /src\/pay\.svc holds @redisLock tags and the build compiles it with the tsx loader[^\n]*Rename it to \.tsx/,
  );
  t.false(fs.existsSync(path.join(APP_DIR, out, 'app.mjs')));
});

test('esbuild compiling a tagged .svc file as JavaScript: the build fails as for a tagged .js file', async (t) => {
  const built = await run(process.execPath, ['build-esbuild.mjs'], {
    ENTRY: 'ledger-entry',
    LOADER: JSON.stringify({ '.svc': 'js' }),
    OUT: 'out/esbuild-js',
  });
  t.not(built.status, 0, built.output);
  t.regex(
    built.output,
    /src\/ledger\.svc holds @redisLock tags, but lockweave's esbuild and Bun plugins weave TypeScript files only/,
  );
});

for (const order of ['before', 'after'])
  test(`esbuild with a plugin listed ${order} lockweave's whose onLoad answers loader 'ts' for .svc: the build fails naming the file, and writes nothing`, async (t) => {
    const out = `out/esbuild-plugin-${order}`;
    const built = await run(process.execPath, ['build-esbuild-plugin.mjs'], { ORDER: order, OUT: out });
    t.not(built.status, 0, built.output);
    t.regex(
      built.output,
      /src\/pay\.svc, \S+src\/refund\.TS hold @redisLock tags, and the build bundled them as code[^\n]*a plugin compiled them/,
    );
    t.false(fs.existsSync(path.join(APP_DIR, out, 'app.mjs')));
  });

test("esbuild whose loader table gives .svc a data loader (text) while a plugin's onLoad answers loader 'ts': the build fails naming the file, and writes nothing", async (t) => {
  // The build's record does not say which loader compiled a file: a tagged file under a name the
  // table maps to data, bundled as code, was compiled by a plugin.
  const out = 'out/esbuild-plugin-text';
  const built = await run(process.execPath, ['build-esbuild-plugin.mjs'], {
    ORDER: 'after',
    LOADER: JSON.stringify({ '.svc': 'text' }),
    OUT: out,
  });
  t.not(built.status, 0, built.output);
  t.regex(built.output, /src\/pay\.svc[^\n]* hold @redisLock tags, and the build bundled them as code/);
  t.false(fs.existsSync(path.join(APP_DIR, out, 'app.mjs')));
});

test('esbuild and webpack: an untagged .svc file compiled as TypeScript builds and runs as before', async (t) => {
  const esbuilt = await run(process.execPath, ['build-esbuild.mjs'], {
    ENTRY: 'plain-app',
    LOADER: JSON.stringify({ '.svc': 'ts' }),
    OUT: 'out/plain',
  });
  t.is(esbuilt.status, 0, esbuilt.output);
  t.is((await run(process.execPath, ['out/plain/plain-app.mjs'])).stdout.trim(), 'hello plain');
  const packed = await run(process.execPath, ['build-webpack.cjs'], { ENTRY: 'plain-app', OUT: 'out/plain-webpack' });
  t.is(packed.status, 0, packed.output);
  t.is((await run(process.execPath, ['out/plain-webpack/plain-app.cjs'])).stdout.trim(), 'hello plain');
});

test('webpack with ts-loader appendTsSuffixTo .svc: a tagged .svc file fails the build naming it and the rename', async (t) => {
  const out = 'out/webpack';
  const built = await run(process.execPath, ['build-webpack.cjs'], { OUT: out });
  t.not(built.status, 0, built.output);
  t.regex(
    built.output,
    /src\/pay\.svc holds @redisLock tags, and the build compiles it as code[^\n]*Rename it to \.ts/,
  );
  t.false(fs.existsSync(path.join(APP_DIR, out, 'app.cjs')));
});

// Serial: the next test moves bunfig.toml aside.
test.serial(
  'bun run with bunfig [loader] .svc = ts and the preload: the tagged methods (.svc, .TS) hold their keys',
  async (t) => {
    const ran = await run(BUN, ['run', 'src/app.ts']);
    t.is(ran.status, 0, ran.output);
    t.deepEqual(printed(ran), LOCKED);
  },
);

/** `body` run with the app's own bunfig.toml (its [loader] and preload) out of the way: the run names another with --config. */
async function withoutAppBunfig(body: () => Promise<void>): Promise<void> {
  fs.renameSync(path.join(APP_DIR, 'bunfig.toml'), path.join(APP_DIR, 'bunfig.off.toml'));
  try {
    await body();
  } finally {
    fs.renameSync(path.join(APP_DIR, 'bunfig.off.toml'), path.join(APP_DIR, 'bunfig.toml'));
  }
}

test.serial('bun run --config=<file> naming the [loader] table: the tagged methods hold their keys', (t) =>
  withoutAppBunfig(async () => {
    const ran = await run(BUN, ['--config=bunfig.named.toml', 'run', 'src/app.ts']);
    t.is(ran.status, 0, ran.output);
    t.deepEqual(printed(ran), LOCKED);
  }),
);

test.serial(
  'bun -l .svc:ts (and --loader=.svc:ts) with a bunfig holding the preload alone: the tagged methods hold their keys',
  (t) =>
    withoutAppBunfig(async () => {
      for (const flag of [['-l', '.svc:ts'], ['--loader=.svc:ts']]) {
        const ran = await run(BUN, ['--config=bunfig.preload.toml', ...flag, 'src/app.ts']);
        t.is(ran.status, 0, ran.output);
        t.deepEqual(printed(ran), LOCKED);
      }
    }),
);

test.serial(
  'bun with lockweave/bun/register and no [loader] for .svc: require of a tagged .svc file (run as JavaScript) is refused before it runs',
  (t) =>
    withoutAppBunfig(async () => {
      const ran = await run(BUN, ['--config=bunfig.preload.toml', 'src/ledger-app.cjs']);
      t.not(ran.status, 0, ran.output);
      t.regex(
        ran.output,
        /lockweave: Bun ran \S+src\/ledger\.svc, which holds @redisLock tags, as code under a name lockweave's routes do not weave/,
      );
      t.notRegex(ran.stdout, /ledger/);
    }),
);

test("Bun.build with loader { .svc: ts }: the bundle's tagged methods hold their keys", async (t) => {
  const built = await run(BUN, ['build-bun.ts'], { OUT: 'out/bun' });
  t.is(built.status, 0, built.output);
  const ran = await run(BUN, ['out/bun/app.js']);
  t.is(ran.status, 0, ran.output);
  t.deepEqual(printed(ran), LOCKED);
});

for (const register of [false, true])
  test(`Node 24 ${register ? 'with' : 'without'} lockweave/register: require of a tagged .svc file (run as JavaScript) is refused before it runs`, async (t) => {
    const ran = await run(NODE24, [...(register ? ['--import', 'lockweave/register'] : []), 'src/ledger-app.cjs']);
    t.not(ran.status, 0, ran.output);
    t.regex(
      ran.output,
      /lockweave: Node ran \S+src\/ledger\.svc, which holds @redisLock tags, as code under a name lockweave's routes do not weave/,
    );
    t.notRegex(ran.stdout, /ledger/);
  });
