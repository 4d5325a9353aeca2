// The bundler routes (lockweave/vite, /rollup, /rolldown, /esbuild, /webpack, /rspack) on the real
// tools: each builds the fixture app, whose tagged methods' bodies find their own key in Redis and
// are alone (3 calls at once), and the bundle is run with node; the same build with a bad tag
// fails with every error's code and file:line:col and writes nothing. vitest runs a test of the
// tagged service through lockweave/vite, and fails on a bad tag. Each config loads the plugin the
// way users do: ES module configs import it, CommonJS configs require it, TypeScript imports it.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installedCopy, ROOT, linkPackage } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'bundlers');
const TMP = path.join(ROOT, 'test', '.tmp', 'routes', 'bundlers');
const APP_DIR = path.join(TMP, 'app');
/** lockweave installed as users install it: a copy in node_modules (a link would make vitest inline it). */
const INSTALLED = path.join(TMP, 'node_modules', 'lockweave');
/** vite 8, vitest 5 and rolldown need Node >= 20.19 / 22.12; the others run on the repo's Node 20 too. */
const NODE24 = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const NODE20 = process.execPath;
const bin = (...parts: string[]) => path.join(ROOT, 'node_modules', ...parts);
/** lockweave's woven-file cache for these runs, apart from the user's. */
const CACHE_DIR = path.join(TMP, 'woven-cache');
const HAS_RSPACK = fs.existsSync(bin('@rspack', 'core', 'package.json'));

interface Bundler {
  readonly node: string;
  readonly args: readonly string[];
  /** The output's extension: ES modules (.mjs) or CommonJS (.cjs). */
  readonly ext: 'mjs' | 'cjs';
  /** webpack and rspack (emitOnErrors outside production mode) write a bundle despite errors. */
  readonly emitsOnErrors?: boolean;
}

const BUNDLERS: Record<string, Bundler> = {
  vite: { node: NODE24, args: [bin('vite', 'bin', 'vite.js'), 'build', '--ssr'], ext: 'mjs' },
  esbuild: { node: NODE20, args: ['build-esbuild.mjs'], ext: 'mjs' },
  rollup: {
    node: NODE20,
    args: [bin('rollup', 'dist', 'bin', 'rollup'), '-c', 'rollup.config.mjs'],
    ext: 'mjs',
  },
  rolldown: {
    node: NODE24,
    args: [bin('rolldown', 'bin', 'cli.mjs'), '-c', 'rolldown.config.mjs'],
    ext: 'mjs',
  },
  webpack: { node: NODE20, args: ['build-webpack.cjs'], ext: 'cjs', emitsOnErrors: true },
  rspack: { node: NODE20, args: ['build-rspack.cjs'], ext: 'cjs', emitsOnErrors: true },
};
const VITEST = [bin('vitest', 'vitest.mjs'), 'run'];

let redis: RedisServer;

test.before(async () => {
  linkPackage(); // asserts that dist is built from the current transformer/
  fs.rmSync(TMP, { recursive: true, force: true });
  fs.cpSync(FIXTURE, APP_DIR, { recursive: true });
  installedCopy(INSTALLED);
  redis = await startRedisServer();
});

test.after.always(async () => {
  await redis?.stop();
});

const runChild = childRunner(3);

function spawnTool(
  binary: string,
  args: readonly string[],
  env: Record<string, string> = {},
  cwd = APP_DIR,
): Promise<Ran> {
  return runChild(binary, args, {
    cwd,
    env: { NO_COLOR: '1', FORCE_COLOR: '0', CI: '1', REDIS_URL: redis.url, LOCKWEAVE_CACHE_DIR: CACHE_DIR, ...env },
  });
}

/** One build of the app and the source-map entry per bundler, shared by the tests that read it. */
const builds = new Map<string, Promise<Ran>>();
function buildApp(name: string): Promise<Ran> {
  if (!builds.has(name)) {
    const bundler = BUNDLERS[name];
    builds.set(name, spawnTool(bundler.node, bundler.args, { ENTRIES: 'app,source-map', OUT: path.join('out', name) }));
  }
  return builds.get(name)!;
}

const BAD_TAG_ERRORS = [
  /src\/bad-tag\.ts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag/,
  /src\/bad-tag\.ts:7:7 - error TS93025: @redisLock: @RedisLock is not @redisLock/,
];

let runs = 0;

for (const [name, bundler] of Object.entries(BUNDLERS)) {
  const register = name === 'rspack' && !HAS_RSPACK ? test.skip : test;

  register(
    `${name}: the bundled app's tagged methods each hold their key (tsconfig prefix), one body at a time: keyed, keyless, several keys, with a signal`,
    async (t) => {
      const built = await buildApp(name);
      t.is(built.status, 0, built.output);
      const ran = await spawnTool(NODE20, [path.join('out', name, `app.${bundler.ext}`)], {
        RUN_ID: `${name}-${++runs}`,
      });
      t.is(ran.status, 0, ran.output);
      const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
        results: Record<string, string[]>;
        cancelled: string;
        most: Record<string, number>;
      };
      const sites = ['app', 'orders', 'nightly', 'transfer', 'cancellable'];
      for (const site of sites) {
        t.is(printed.results[site].length, 3, site);
        for (const token of printed.results[site]) t.regex(token, /^[0-9a-f-]{36}$/, site);
        // Not one token per call: a call that waited may take over the grant of the one before it, token and all (take-over).
      }
      t.deepEqual(printed.most, Object.fromEntries(sites.map((site) => [site, 1])));
      t.is(printed.cancelled, 'gone');
    },
  );

  register(`${name}: the bundle's source map points a woven line at its original line and column`, async (t) => {
    const built = await buildApp(name);
    t.is(built.status, 0, built.output);
    const lines = fs.readFileSync(path.join(FIXTURE, 'src', 'source-map.ts'), 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes('throw new Error'));
    const where = `source-map.ts:${line + 1}:${lines[line].indexOf('new Error') + 1}`;
    const ran = await spawnTool(NODE20, ['--enable-source-maps', path.join('out', name, `source-map.${bundler.ext}`)], {
      RUN_ID: `${name}-${++runs}`,
    });
    t.is(ran.status, 0, ran.output);
    t.true(ran.stdout.includes(where), `expected ${where} in:\n${ran.output}`);
  });

  register(
    `${name}: a bad tag fails the build with each error's code and file:line:col, and no bundle runs the method`,
    async (t) => {
      const out = path.join('out', `${name}-bad-tag`);
      const built = await spawnTool(bundler.node, bundler.args, { ENTRIES: 'bad-tag', OUT: out });
      t.not(built.status, 0, built.output);
      for (const error of BAD_TAG_ERRORS) t.regex(built.output, error);
      const bundle = path.join(out, `bad-tag.${bundler.ext}`);
      if (!bundler.emitsOnErrors) {
        t.false(fs.existsSync(path.join(APP_DIR, bundle)), 'a bundle was written');
        return;
      }
      // webpack and rspack outside production mode still write the bundle, with the failed module
      // replaced by a throw of the build error: it refuses to load, it never runs unlocked.
      const ran = await spawnTool(NODE20, [bundle]);
      t.not(ran.status, 0, ran.output);
      for (const error of BAD_TAG_ERRORS) t.regex(ran.output, error);
      t.notRegex(ran.output, /built without the lock/);
    },
  );
}

// An allowJs project's tagged JavaScript (src/refunds.js), which tspc weaves: every route locks it
// too, but esbuild's, whose plugin loads TypeScript only (its onLoad filter cannot leave node_modules
// out): its build fails naming the file and the fix, and writes nothing.
for (const [name, bundler] of Object.entries(BUNDLERS)) {
  const register = name === 'rspack' && !HAS_RSPACK ? test.skip : test;
  const out = path.join('out', `${name}-js`);
  if (name === 'esbuild') {
    register('esbuild: a tagged method in a .js file fails the build, naming the file and the fix', async (t) => {
      const built = await spawnTool(bundler.node, bundler.args, { ENTRIES: 'js-app', OUT: out });
      t.not(built.status, 0, built.output);
      t.regex(
        built.output,
        /src\/refunds\.js holds @redisLock tags, but lockweave's esbuild and Bun plugins weave TypeScript files only[^\n]*Rename it to \.ts/,
      );
      t.false(fs.existsSync(path.join(APP_DIR, out, 'js-app.mjs')), 'a bundle was written');
    });
    continue;
  }
  register(`${name}: a tagged method in a .js file (allowJs) holds its key, one body at a time`, async (t) => {
    const built = await spawnTool(bundler.node, bundler.args, { ENTRIES: 'js-app', OUT: out });
    t.is(built.status, 0, built.output);
    const ran = await spawnTool(NODE20, [path.join(out, `js-app.${bundler.ext}`)], { RUN_ID: `${name}-js-${++runs}` });
    t.is(ran.status, 0, ran.output);
    const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
      results: { refunds: string[] };
      most: { refunds: number };
    };
    t.is(printed.results.refunds.length, 3);
    for (const token of printed.results.refunds) t.regex(token, /^[0-9a-f-]{36}$/);
    t.is(printed.most.refunds, 1);
  });
}

for (const name of ['webpack', 'rspack']) {
  const register = name === 'rspack' && !HAS_RSPACK ? test.skip : test;
  const args = BUNDLERS[name].args;

  register(
    `${name}: a user's 'pre' loader that drops comments runs after lockweave's loader, and the app locks`,
    async (t) => {
      const out = path.join('out', `${name}-strip-rule`);
      const built = await spawnTool(NODE20, args, { ENTRIES: 'app', OUT: out, STRIP_COMMENTS: 'rule' });
      t.is(built.status, 0, built.output);
      const ran = await spawnTool(NODE20, [path.join(out, 'app.cjs')], { RUN_ID: `${name}-strip-${++runs}` });
      t.is(ran.status, 0, ran.output);
      const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as { most: Record<string, number> };
      t.deepEqual(printed.most, { app: 1, orders: 1, nightly: 1, transfer: 1, cancellable: 1 });
    },
  );
}

/** A build that lost tags on the way to lockweave: the error names each file and the fix's reason. */
const STRIPPED =
  /src\/(?:app|jobs|orders)\.ts(?:, \S+)* holds? @redisLock tags, but a plugin or loader that ran before lockweave's handed/;

// A plugin or loader that runs before lockweave's and drops the tag comments (all of them, or one
// per file): lockweave is handed the file without them, or never at all (esbuild's onLoad answers
// first). The build fails naming the files, and no bundle runs a method unlocked.
for (const [name, bundler] of Object.entries(BUNDLERS)) {
  const register = name === 'rspack' && !HAS_RSPACK ? test.skip : test;
  for (const [strip, what] of [
    ['plugin', 'drops the tag comments'],
    ['one', 'drops one tag comment of each file'],
  ] as const) {
    register(`${name}: a plugin before lockweave's that ${what} fails the build, naming the files`, async (t) => {
      const out = path.join('out', `${name}-strip-${strip}`);
      const built = await spawnTool(bundler.node, bundler.args, { ENTRIES: 'app', OUT: out, STRIP_COMMENTS: strip });
      t.regex(built.output, STRIPPED);
      const bundle = path.join(out, `app.${bundler.ext}`);
      if (!bundler.emitsOnErrors) {
        t.not(built.status, 0, built.output);
        t.false(fs.existsSync(path.join(APP_DIR, bundle)), 'a bundle was written');
        return;
      }
      // Written despite the error (outside production mode): the module throws it instead of running.
      const ran = await spawnTool(NODE20, [bundle]);
      t.not(ran.status, 0, ran.output);
      t.regex(ran.output, STRIPPED);
    });
  }
}

// A plugin that loads a tagged file's text under a virtual module id (\0…): no file, no tsconfig for
// lockweave to weave it by. The build fails naming the module instead of bundling it unlocked.
for (const name of ['rollup', 'rolldown', 'vite']) {
  test(`${name}: a plugin that loads a tagged file as a virtual module fails the build, naming the module`, async (t) => {
    const out = path.join('out', `${name}-virtual`);
    const bundler = BUNDLERS[name];
    const built = await spawnTool(bundler.node, bundler.args, { ENTRIES: 'app', OUT: out, STRIP_COMMENTS: 'virtual' });
    t.not(built.status, 0, built.output);
    t.regex(
      built.output,
      /lockweave: a plugin made the virtual module "\\u0000virtual:[^"]*orders\.ts" with @redisLock tags/,
    );
    t.false(fs.existsSync(path.join(APP_DIR, out, `app.${bundler.ext}`)), 'a bundle was written');
  });
}

for (const name of ['webpack', 'rspack']) {
  const register = name === 'rspack' && !HAS_RSPACK ? test.skip : test;
  register(
    `${name}: a later plugin that rewrites the rules without lockweave's fails the compilation, naming the files, and emits nothing`,
    async (t) => {
      const out = path.join('out', `${name}-strip-rules`);
      const built = await spawnTool(NODE20, BUNDLERS[name].args, { ENTRIES: 'app', OUT: out, STRIP_COMMENTS: 'rules' });
      t.not(built.status, 0, built.output);
      t.regex(built.output, STRIPPED);
      t.false(fs.existsSync(path.join(APP_DIR, out, 'app.cjs')), 'a bundle was written');
    },
  );
}

// A query that is vite's way of saying data (`?url`, `?raw`) means nothing of its own to webpack and
// rspack: their TypeScript loader compiles `./orders.ts?url` as it compiles `./orders.ts`, so the
// file is code, and its methods lock (src/query-app.ts); built without lockweave's loader, it fails
// the compilation. Data is what a rule makes it: `?raw` made an asset/source module is the file's
// text as it is on disk, tags and all, neither woven nor failing the build (build-raw-asset.cjs).
for (const name of ['webpack', 'rspack']) {
  const register = name === 'rspack' && !HAS_RSPACK ? test.skip : test;

  register(
    `${name}: tagged files imported with ?url and ?raw, which it compiles as code, hold their keys`,
    async (t) => {
      const out = path.join('out', `${name}-query`);
      const built = await spawnTool(NODE20, BUNDLERS[name].args, { ENTRIES: 'query-app', OUT: out });
      t.is(built.status, 0, built.output);
      const ran = await spawnTool(NODE20, [path.join(out, 'query-app.cjs')], { RUN_ID: `${name}-query-${++runs}` });
      t.is(ran.status, 0, ran.output);
      const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
        results: Record<string, string[]>;
        most: Record<string, number>;
      };
      for (const site of ['orders', 'cancellable']) {
        t.is(printed.results[site].length, 3, site);
        for (const token of printed.results[site]) t.regex(token, /^[0-9a-f-]{36}$/, site);
      }
      t.deepEqual(printed.most, { orders: 1, cancellable: 1 });
    },
  );

  register(
    `${name}: tagged files imported with ?url and ?raw and built without lockweave's loader fail the compilation, naming the files`,
    async (t) => {
      const out = path.join('out', `${name}-query-strip-rules`);
      const built = await spawnTool(NODE20, BUNDLERS[name].args, {
        ENTRIES: 'query-app',
        OUT: out,
        STRIP_COMMENTS: 'rules',
      });
      t.not(built.status, 0, built.output);
      t.regex(built.output, STRIPPED);
      t.regex(built.output, /src\/jobs\.ts/);
      t.regex(built.output, /src\/orders\.ts/);
      t.false(fs.existsSync(path.join(APP_DIR, out, 'query-app.cjs')), 'a bundle was written');
    },
  );

  register(
    `${name}: a rule that makes ?raw an asset/source bundles the tagged file's text as it is on disk, unwoven, and ?url of it still locks`,
    async (t) => {
      const out = path.join('out', `${name}-raw-asset`);
      const built = await spawnTool(NODE20, ['build-raw-asset.cjs', name], { ENTRIES: 'raw-asset', OUT: out });
      t.is(built.status, 0, built.output);
      t.notRegex(built.output, /lockweave|redisLock/i);
      const ran = await spawnTool(NODE20, [path.join(out, 'raw-asset.cjs')], { RUN_ID: `${name}-raw-${++runs}` });
      t.is(ran.status, 0, ran.output);
      const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
        text: string;
        results: { orders: string[] };
        most: { orders: number };
      };
      t.is(printed.text, fs.readFileSync(path.join(FIXTURE, 'src', 'orders.ts'), 'utf8'));
      t.is(printed.results.orders.length, 3);
      for (const token of printed.results.orders) t.regex(token, /^[0-9a-f-]{36}$/);
      t.is(printed.most.orders, 1);
    },
  );
}

// vite reads `?raw` and `?url` as data by its own tests (`(\?|&)raw(?:&|$)`), so `?raw=1` and `?url=1`
// are code to it: compiled as TypeScript, woven, and their methods lock (src/vite-query-app.ts,
// tests/query.test.ts).
test('vite: tagged files imported with ?raw=1 and ?url=1, which vite compiles as code, hold their keys', async (t) => {
  const out = path.join('out', 'vite-query');
  const built = await spawnTool(BUNDLERS.vite.node, BUNDLERS.vite.args, { ENTRIES: 'vite-query-app', OUT: out });
  t.is(built.status, 0, built.output);
  const ran = await spawnTool(NODE20, [path.join(out, 'vite-query-app.mjs')], { RUN_ID: `vite-query-${++runs}` });
  t.is(ran.status, 0, ran.output);
  const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
    results: Record<string, string[]>;
    most: Record<string, number>;
  };
  for (const site of ['orders', 'cancellable']) {
    t.is(printed.results[site].length, 3, site);
    for (const token of printed.results[site]) t.regex(token, /^[0-9a-f-]{36}$/, site);
  }
  t.deepEqual(printed.most, { orders: 1, cancellable: 1 });
});

test('vitest: a tagged file imported with ?raw=1, which vite compiles as code, holds its key, one body at a time', async (t) => {
  const ran = await spawnTool(NODE24, VITEST, { VITEST_INCLUDE: 'tests/query.test.ts', RUN_ID: `vitest-${++runs}` });
  t.is(ran.status, 0, ran.output);
  t.regex(ran.output, /1 passed/);
});

// esbuild's stdin is handed to no plugin: lockweave weaves it before the build. TypeScript a plugin
// serves from memory in a namespace of its own has no file lockweave could read: the build fails.
test("esbuild: a tagged app handed as stdin (loader 'ts') is woven, and its method holds its key, one body at a time", async (t) => {
  const out = path.join('out', 'esbuild-stdin');
  const built = await spawnTool(NODE20, ['build-esbuild-stdin.mjs'], { STDIN: 'ts', OUT: out });
  t.is(built.status, 0, built.output);
  const ran = await spawnTool(NODE20, [path.join(out, 'stdin-app.mjs')], { RUN_ID: `esbuild-stdin-${++runs}` });
  t.is(ran.status, 0, ran.output);
  const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
    results: { stdin: string[] };
    most: { stdin: number };
  };
  t.is(printed.results.stdin.length, 3);
  for (const token of printed.results.stdin) t.regex(token, /^[0-9a-f-]{36}$/);
  t.is(printed.most.stdin, 1);
});

test('esbuild: tagged stdin read as JavaScript, tagged TypeScript a plugin serves from memory, and a file a plugin before lockweave loads, fail the build', async (t) => {
  const js = await spawnTool(NODE20, ['build-esbuild-stdin.mjs'], { STDIN: 'js', OUT: path.join('out', 'stdin-js') });
  t.not(js.status, 0, js.output);
  t.regex(js.output, /the build's stdin \(stdin-app\.ts\) holds @redisLock tags, but esbuild reads it as js/);
  t.false(fs.existsSync(path.join(APP_DIR, 'out', 'stdin-js', 'stdin-app.mjs')), 'a bundle was written');
  const out = path.join('out', 'stdin-virtual');
  const virtual = await spawnTool(NODE20, ['build-esbuild-stdin.mjs'], { STDIN: 'virtual', OUT: out });
  t.not(virtual.status, 0, virtual.output);
  t.regex(
    virtual.output,
    /the build bundled virtual:orders\.ts, TypeScript that a plugin loaded in a namespace of its own/,
  );
  t.false(fs.existsSync(path.join(APP_DIR, out, 'stdin-app.mjs')), 'a bundle was written');
  // A file with no tags on disk, for which a plugin before lockweave's answers with tagged text:
  // lockweave's onLoad, which takes every TypeScript file, was never asked, so the build fails.
  const swapOut = path.join('out', 'stdin-swap');
  const swap = await spawnTool(NODE20, ['build-esbuild-stdin.mjs'], { STDIN: 'swap', OUT: swapOut });
  t.not(swap.status, 0, swap.output);
  t.regex(swap.output, /src\/js-app\.ts was loaded by a plugin listed before lockweave's/);
  t.false(fs.existsSync(path.join(APP_DIR, swapOut, 'stdin-app.mjs')), 'a bundle was written');
  // A tagged file another plugin, listed after lockweave's, loads from disk in a namespace of its own.
  const nsOut = path.join('out', 'stdin-namespaced');
  const namespaced = await spawnTool(NODE20, ['build-esbuild-stdin.mjs'], { STDIN: 'namespaced', OUT: nsOut });
  t.not(namespaced.status, 0, namespaced.output);
  t.regex(namespaced.output, /worker:\S*orders\.ts was loaded by a plugin/);
  t.false(fs.existsSync(path.join(APP_DIR, nsOut, 'stdin-app.mjs')), 'a bundle was written');
});

test("rollup: a build handed the last one's cache and a new plugin weaves its cached tagged modules, and the app locks", async (t) => {
  const out = path.join('out', 'rollup-cached');
  const built = await spawnTool(NODE20, ['build-rollup-cached.mjs'], { OUT: out });
  t.is(built.status, 0, built.output);
  const ran = await spawnTool(NODE20, [path.join(out, 'app.mjs')], { RUN_ID: `rollup-cached-${++runs}` });
  t.is(ran.status, 0, ran.output);
  const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as { most: Record<string, number> };
  t.deepEqual(printed.most, { app: 1, orders: 1, nightly: 1, transfer: 1, cancellable: 1 });
});

test('rollup: rollup-plugin-esbuild listed before lockweave keeps the tag comments in its JavaScript, and the app locks', async (t) => {
  const out = path.join('out', 'rollup-esbuild-first');
  const built = await spawnTool(NODE20, BUNDLERS.rollup.args, { ENTRIES: 'app', OUT: out, ESBUILD_FIRST: '1' });
  t.is(built.status, 0, built.output);
  const ran = await spawnTool(NODE20, [path.join(out, 'app.mjs')], { RUN_ID: `rollup-esbuild-first-${++runs}` });
  t.is(ran.status, 0, ran.output);
  const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as { most: Record<string, number> };
  t.deepEqual(printed.most, { app: 1, orders: 1, nightly: 1, transfer: 1, cancellable: 1 });
});

test("webpack + ts-loader type-checking (its default) under strict: the woven text checks as the user's did, and the app locks", async (t) => {
  const out = path.join('out', 'webpack-typecheck');
  const built = await spawnTool(NODE20, ['build-webpack.cjs'], { ENTRIES: 'app', OUT: out, TS_LOADER_TYPECHECK: '1' });
  t.is(built.status, 0, built.output);
  const ran = await spawnTool(NODE20, [path.join(out, 'app.cjs')], { RUN_ID: `webpack-typecheck-${++runs}` });
  t.is(ran.status, 0, ran.output);
  const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as { most: Record<string, number> };
  t.deepEqual(printed.most, { app: 1, orders: 1, nightly: 1, transfer: 1, cancellable: 1 });
  // The check ran: a type error of the user's own in a tagged file fails the same build.
  const wrong = path.join(TMP, 'app-type-error');
  fs.cpSync(APP_DIR, wrong, { recursive: true, filter: (file) => !file.includes(`${path.sep}out`) });
  const orders = path.join(wrong, 'src', 'orders.ts');
  fs.writeFileSync(orders, `${fs.readFileSync(orders, 'utf8')}\nexport const wrong: number = 'not a number';\n`);
  const failed = await spawnTool(
    NODE20,
    ['build-webpack.cjs'],
    { ENTRIES: 'app', OUT: out, TS_LOADER_TYPECHECK: '1' },
    wrong,
  );
  t.not(failed.status, 0, failed.output);
  t.regex(failed.output, /TS2322: Type 'string' is not assignable to type 'number'/);
  t.notRegex(failed.output, /lockweave|redisLock/i);
});

if (!HAS_RSPACK) test('rspack: skipped, @rspack/core is not installed', (t) => t.pass());

test('vitest: a test of the tagged service passes, its 3 calls at once each holding the key, one at a time', async (t) => {
  const ran = await spawnTool(NODE24, VITEST, { RUN_ID: `vitest-${++runs}` });
  t.is(ran.status, 0, ran.output);
  t.regex(ran.output, /Tests\s+1 passed/);
});

test('vitest: a tagged method in a .js file (allowJs) holds its key, one body at a time', async (t) => {
  const ran = await spawnTool(NODE24, VITEST, { VITEST_INCLUDE: 'tests/refunds.test.ts', RUN_ID: `vitest-${++runs}` });
  t.is(ran.status, 0, ran.output);
  t.regex(ran.output, /Tests\s+1 passed/);
});

test('vitest: a test file that loads a bad tag fails with each error', async (t) => {
  const ran = await spawnTool(NODE24, VITEST, { VITEST_INCLUDE: 'tests/bad-tag.test.ts' });
  t.not(ran.status, 0, ran.output);
  for (const error of BAD_TAG_ERRORS) t.regex(ran.output, error);
  t.notRegex(ran.output, /Tests\s+1 passed/);
});

test("vitest: a plugin before lockweave's that drops the tag comments fails the test file, naming the file", async (t) => {
  const ran = await spawnTool(NODE24, VITEST, { STRIP_COMMENTS: 'plugin', RUN_ID: `vitest-${++runs}` });
  t.not(ran.status, 0, ran.output);
  t.regex(ran.output, STRIPPED);
  t.notRegex(ran.output, /Tests\s+1 passed/);
});

test("vitest: its module cache (fsModuleCache) weaves again when the tsconfig's prefix changes", async (t) => {
  // A copy of its own: this test edits the tsconfig.
  const dir = path.join(TMP, 'vitest-cache-app');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const first = await spawnTool(NODE24, VITEST, { RUN_ID: `vitest-${++runs}` }, dir);
  t.is(first.status, 0, first.output);
  t.true(
    fs.readdirSync(path.join(dir, 'node_modules', '.vitest-cache')).length > 0,
    'vitest cached nothing: this test would prove nothing',
  );
  const tsconfig = path.join(dir, 'tsconfig.json');
  fs.writeFileSync(tsconfig, fs.readFileSync(tsconfig, 'utf8').replace('"BUNDLE_"', '"RECACHED_"'));
  const second = await spawnTool(NODE24, VITEST, { RUN_ID: `vitest-${++runs}`, EXPECT_PREFIX: 'RECACHED_' }, dir);
  t.is(second.status, 0, second.output);
});

for (const [label, flags] of [
  ['a Node ES module (nodenext)', []],
  ['bundler resolution', ['--module', 'preserve', '--moduleResolution', 'bundler']],
] as const) {
  test(`TypeScript's default import of every entry point type-checks, in ${label}`, async (t) => {
    const ran = await spawnTool(NODE20, [bin('typescript', 'bin', 'tsc'), '-p', 'tsconfig.types.json', ...flags]);
    t.is(ran.status, 0, ran.output);
  });
}

test('require() of each entry point is the plugin factory itself, and its .default the same', (t) => {
  for (const name of Object.keys(BUNDLERS)) {
    const factory = require(path.join(INSTALLED, 'dist', 'transformer', 'routes', `${name}.js`));
    t.is(typeof factory, 'function', name);
    t.is(factory.default, factory, name);
    const plugin = factory();
    t.true(plugin.name === 'lockweave' || typeof plugin.apply === 'function', name);
  }
});

test("weaves .ts, .mts, .cts and .tsx sources, with or without a query, under node_modules too, and the project's own JavaScript; not declarations, virtual modules, ?raw text, nor a package's or lockweave's own JavaScript", (t) => {
  const { isWeavable } = require(path.join(INSTALLED, 'dist', 'transformer', 'routes', 'bundler-hooks.js')) as {
    isWeavable: (id: string) => boolean;
  };
  for (const id of [
    '/p/a.ts',
    '/p/a.mts',
    '/p/a.cts',
    '/p/a.tsx',
    '/p/a.ts?v=3f2a',
    '/p/a.ts?import&t=1',
    '/p/node_modules/lib/a.ts',
    '/p/a.js',
    '/p/a.mjs',
    '/p/a.cjs',
    '/p/a.jsx',
    '/p/a.js?v=3f2a',
    // Not vite's data queries, which it tests as `(\?|&)raw(?:&|$)` and `(\?|&)url(?:&|$)`: code to vite.
    '/p/a.ts?raw=1',
    '/p/a.ts?url=1',
    '/p/a.ts?x=1&raw=',
    '/p/a.ts?rawx',
    '/p/a.ts?urls',
  ])
    t.true(isWeavable(id), id);
  for (const id of [
    '/p/a.d.ts',
    '/p/a.d.mts',
    '\0virtual:a.ts',
    '\0virtual:a.js',
    '/p/a.ts?raw',
    '/p/a.js?raw',
    '/p/a.ts?url',
    '/p/a.ts?raw&v=3f2a',
    '/p/a.ts?import&raw',
    '/p/a.ts?url&inline',
    '/p/node_modules/lib/a.js',
    '/p/node_modules/lib/a.mjs?v=3f2a',
    '/p/a.json',
  ])
    t.false(isWeavable(id), id);
  // lockweave's own dist where a link puts it outside node_modules (npm link, a workspace): its
  // comments quote the tag, and it is no project's source.
  const linked = require(path.join(ROOT, 'dist', 'transformer', 'routes', 'bundler-hooks.js')) as {
    isWeavable: (id: string) => boolean;
  };
  t.false(linked.isWeavable(path.join(ROOT, 'dist', 'runtime', 'index.js')));
  t.true(linked.isWeavable(path.join(ROOT, 'src', 'a.js')));
});

test("webpack's and rspack's route takes a source file whatever its query (the module's type says what is data); not declarations, virtual modules, nor a package's JavaScript", (t) => {
  const { isWeavableFile } = require(path.join(INSTALLED, 'dist', 'transformer', 'routes', 'bundler-hooks.js')) as {
    isWeavableFile: (file: string) => boolean;
  };
  const { isDataModule } = require(path.join(INSTALLED, 'dist', 'transformer', 'routes', 'webpack-like.js')) as {
    isDataModule: (module: { type?: unknown } | undefined) => boolean;
  };
  for (const file of ['/p/a.ts', '/p/a.mts', '/p/a.tsx', '/p/node_modules/lib/a.ts', '/p/a.js'])
    t.true(isWeavableFile(file), file);
  for (const file of ['/p/a.d.ts', '\0virtual:a.ts', '/p/node_modules/lib/a.js', '/p/a.json'])
    t.false(isWeavableFile(file), file);
  for (const type of ['asset', 'asset/source', 'asset/resource', 'asset/inline']) t.true(isDataModule({ type }), type);
  for (const module of [{ type: 'javascript/auto' }, { type: 'javascript/esm' }, { type: 'assets' }, {}, undefined])
    t.false(isDataModule(module), JSON.stringify(module));
});

test('TypeScript is loaded for a tagged file only, and not again once the woven file is cached', async (t) => {
  const orders = path.join(APP_DIR, 'src', 'orders.ts');
  const script = `
    const plugin = require(${JSON.stringify(path.join(INSTALLED, 'dist', 'transformer', 'routes', 'rollup.js'))})();
    const watched = [];
    const context = { addWatchFile: (file) => watched.push(file) };
    const loaded = () => Object.keys(require.cache).some((file) => /[\\/]node_modules[\\/]typescript6?[\\/]/.test(file));
    const untagged = plugin.transform.handler.call(context, 'export const a: number = 1;', ${JSON.stringify(path.join(APP_DIR, 'src', 'plain.ts'))});
    const before = loaded();
    const tagged = plugin.transform.handler.call(context, require('node:fs').readFileSync(${JSON.stringify(orders)}, 'utf8'), ${JSON.stringify(orders)});
    console.log(JSON.stringify({ untagged: untagged ?? null, before, after: loaded(), code: tagged.code, map: tagged.map.mappings.length > 0, watched }));
  `;
  const cacheDir = path.join(TMP, 'cache-of-typescript-test');
  const first = await spawnTool(NODE20, ['-e', script], { LOCKWEAVE_CACHE_DIR: cacheDir });
  t.is(first.status, 0, first.output);
  const cold = JSON.parse(first.stdout);
  t.like(cold, {
    untagged: null,
    before: false,
    after: true,
    map: true,
    watched: [path.join(APP_DIR, 'tsconfig.json')],
  });
  t.regex(cold.code, /prefix: "BUNDLE_"/);
  const second = await spawnTool(NODE20, ['-e', script], { LOCKWEAVE_CACHE_DIR: cacheDir });
  t.is(second.status, 0, second.output);
  t.deepEqual(JSON.parse(second.stdout), { ...cold, after: false });
});
