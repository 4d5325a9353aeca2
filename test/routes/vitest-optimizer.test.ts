// vite's dependency optimizer and lockweave/vite, on the real vite and vitest: a linked workspace
// package that ships a tagged method, pre-bundled by the optimizer (vitest's
// test.deps.optimizer.ssr, the dev server's ssr.optimizeDeps), locks with its own tsconfig's
// prefix, one body at a time, as it does served as source without the optimizer; a changed prefix
// is woven again, not read from the optimizer's cache. An optimizer lockweave cannot hook refuses
// a linked package at config time.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { weaveOptimizedDeps } from '../../transformer/routes/vite-optimizer';
import { childRunner, type Ran } from '../helpers/child-process';
import { installedCopy, ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'vitest-optimizer');
const scratch = routeScratch('routes', 'vitest-optimizer');
const TMP = scratch.dir;
/** lockweave installed as users install it: a copy in node_modules (a link would make vitest inline it). */
const INSTALLED = path.join(TMP, 'node_modules', 'lockweave');
/** vite 8 and vitest 5 need Node >= 20.19 / 22.12. */
const NODE24 = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const VITEST = [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run'];

test.before(() => {
  installedCopy(INSTALLED);
});

/** A copy of the fixture of its own (a test edits its tsconfig), @org/pay linked into the app's node_modules; the app's directory. */
function workspace(name: string): string {
  const dir = path.join(TMP, name);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const link = path.join(dir, 'app', 'node_modules', '@org', 'pay');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(path.relative(path.dirname(link), path.join(dir, 'packages', 'pay')), link, 'dir');
  return path.join(dir, 'app');
}

const runChild = childRunner(3);
let runs = 0;

function spawnTool(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<Ran> {
  return runChild(NODE24, args, {
    cwd,
    env: {
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      CI: '1',
      REDIS_URL: scratch.redis().url,
      LOCKWEAVE_CACHE_DIR: path.join(TMP, 'woven-cache'),
      RUN_ID: `optimizer-${++runs}`,
      ...env,
    },
  });
}

/** The optimizer's bundle of @org/pay under the app's cache directory, or undefined when it wrote none. */
function optimizedPay(app: string): string | undefined {
  const found = fs
    .readdirSync(path.join(app, '.cache'), { recursive: true, encoding: 'utf8' })
    .find((file) => file.endsWith('@org_pay.js'));
  return found && fs.readFileSync(path.join(app, '.cache', found), 'utf8');
}

test('vitest, test.deps.optimizer.ssr including the linked package: its method locks PAY_…, one body at a time, and the bundle imports the app’s runtime', async (t) => {
  const app = workspace('vitest-ssr');
  const ran = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr' });
  t.is(ran.status, 0, ran.output);
  t.regex(ran.output, /Tests\s+1 passed/);
  const bundle = optimizedPay(app);
  t.truthy(bundle, 'the optimizer bundled nothing: this test would prove nothing');
  t.regex(bundle!, /defineLock\(/);
  // lockweave's runtime stays the app's one copy, which configure() reaches.
  t.regex(bundle!, /from "lockweave\/runtime"/);
  t.notRegex(bundle!, /ioredis/);
});

test('vitest without the optimizer: the linked package, served as source, locks PAY_… too', async (t) => {
  const app = workspace('vitest-source');
  const ran = await spawnTool(app, VITEST);
  t.is(ran.status, 0, ran.output);
  t.regex(ran.output, /Tests\s+1 passed/);
  t.is(optimizedPay(app), undefined);
});

test("vitest's optimizer weaves again when the package's tsconfig prefix changes, rather than keep its cache", async (t) => {
  const app = workspace('vitest-prefix');
  const first = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr' });
  t.is(first.status, 0, first.output);
  const again = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr' });
  t.is(again.status, 0, again.output);
  const tsconfig = path.join(app, '..', 'packages', 'pay', 'tsconfig.json');
  fs.writeFileSync(tsconfig, fs.readFileSync(tsconfig, 'utf8').replace('"PAY_"', '"REPAID_"'));
  const changed = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr', EXPECT_PREFIX: 'REPAID_' });
  t.is(changed.status, 0, changed.output);
  t.regex(optimizedPay(app)!, /defineLock\(/);
});

test("vite's dev server, ssr.optimizeDeps including the linked package: its method locks PAY_…, one body at a time", async (t) => {
  const app = workspace('vite-dev-ssr');
  const ran = await spawnTool(app, ['dev-ssr.mjs'], { RUN_ID: 'D1' });
  t.is(ran.status, 0, ran.output);
  t.deepEqual(JSON.parse(ran.stdout.trim().split('\n').pop()!), {
    keys: ['PAY_pay_D1', 'PAY_pay_D1', 'PAY_pay_D1'],
    most: 1,
  });
  t.regex(optimizedPay(app) ?? '', /defineLock\(/);
});

test('an optimizer lockweave cannot hook (esbuild’s, vite < 8) refuses a linked package (or a glob) in any include, and leaves installed ones alone', (t) => {
  const app = workspace('unhooked');
  const config = (include: string[]) => ({
    root: app,
    cacheDir: path.join(app, '.cache'),
    environments: { client: { optimizeDeps: { include: [] } }, ssr: { optimizeDeps: { include } } },
  });
  const error = t.throws(() =>
    weaveOptimizedDeps(config(['@org/pay']), { viteVersion: '7.1.0' }, () => t.fail() as never),
  );
  t.regex(error.message, /include @org\/pay, a linked package .* this vite \(7\.1\.0\) optimizes with esbuild/);
  // A glob may match a linked package: which one cannot be told from here.
  const glob = t.throws(() =>
    weaveOptimizedDeps(config(['@org/*']), { viteVersion: '7.1.0' }, () => t.fail() as never),
  );
  t.regex(glob.message, /include @org\/\*, a linked package \(or a pattern that may match one\)/);
  // vitest, installed (a real directory under node_modules), and a package not installed at all.
  t.notThrows(() =>
    weaveOptimizedDeps(config(['vitest', 'not-installed']), { viteVersion: '7.1.0' }, () => t.fail() as never),
  );
});

test('an optimizer lockweave cannot hook refuses a linked package a nested include reaches through an installed one (`dep > @org/pay`)', (t) => {
  const app = workspace('unhooked-nested');
  // @org/pay is dep's dependency only: linked into dep's node_modules, not the app's.
  fs.rmSync(path.join(app, 'node_modules', '@org'), { recursive: true });
  const dep = path.join(app, 'node_modules', 'dep');
  fs.mkdirSync(path.join(dep, 'node_modules', '@org'), { recursive: true });
  fs.writeFileSync(path.join(dep, 'package.json'), JSON.stringify({ name: 'dep', version: '1.0.0' }));
  fs.symlinkSync(path.join(app, '..', 'packages', 'pay'), path.join(dep, 'node_modules', '@org', 'pay'), 'dir');
  const config = {
    root: app,
    cacheDir: path.join(app, '.cache'),
    environments: { ssr: { optimizeDeps: { include: ['dep > @org/pay'] } } },
  };
  const error = t.throws(() => weaveOptimizedDeps(config, { viteVersion: '7.1.0' }, () => t.fail() as never));
  t.regex(error.message, /include dep > @org\/pay, a linked package/);
});

test("vitest's optimizer weaves again when a package the tsconfig extends appears in a nearer node_modules, rather than keep its cache", async (t) => {
  const app = workspace('vitest-shadowed');
  const workspaceDir = path.join(app, '..');
  // The package's entry comes from a shared base, found in the workspace's node_modules.
  const base = (dir: string, prefix: string) => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: '@org/tsconfig', version: '1.0.0' }));
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          strict: true,
          plugins: [{ transform: 'lockweave/transformer', prefix }],
        },
      }),
    );
  };
  base(path.join(workspaceDir, 'node_modules', '@org', 'tsconfig'), 'PAY_');
  fs.writeFileSync(
    path.join(workspaceDir, 'packages', 'pay', 'tsconfig.json'),
    JSON.stringify({ extends: '@org/tsconfig/tsconfig.json', include: ['src'] }),
  );
  const first = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr' });
  t.is(first.status, 0, first.output);
  // Installed nearer to the package, it is the one tspc reads now.
  base(path.join(workspaceDir, 'packages', 'pay', 'node_modules', '@org', 'tsconfig'), 'REPAID_');
  const changed = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr', EXPECT_PREFIX: 'REPAID_' });
  t.is(changed.status, 0, changed.output);
});

test("vitest's optimizer weaves again when the marker of the package's project root goes, rather than keep its cache", async (t) => {
  const app = workspace('vitest-root-marker');
  const workspaceDir = path.join(app, '..');
  // The package has no entry of its own; a .git in packages/ makes it the project's root, so the
  // workspace's tsconfig.json above, which has one, is no part of it.
  const tsconfig = path.join(workspaceDir, 'packages', 'pay', 'tsconfig.json');
  fs.writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }));
  fs.mkdirSync(path.join(workspaceDir, 'packages', '.git'));
  fs.writeFileSync(
    path.join(workspaceDir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { plugins: [{ transform: 'lockweave/transformer', prefix: 'REPAID_' }] },
      include: ['packages/pay/src'],
    }),
  );
  const first = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr', EXPECT_PREFIX: 'LOCK_' });
  t.is(first.status, 0, first.output);
  // Without it the root is the repository's, and `tspc -p .` in the workspace builds the package with REPAID_.
  fs.rmSync(path.join(workspaceDir, 'packages', '.git'), { recursive: true });
  const changed = await spawnTool(app, VITEST, { OPTIMIZE: 'ssr', EXPECT_PREFIX: 'REPAID_' });
  t.is(changed.status, 0, changed.output);
});
