// The Bun route (lockweave/bun, lockweave/bun/register) on the real Bun, the `bun` devDependency's
// binary. The app is the bundlers' fixture (test/fixtures/routes/bundlers: tagged methods whose
// bodies find their own keys in Redis and are alone, every woven shape) with Bun's files laid
// over it (test/fixtures/routes/bun: bunfig.toml, a Bun.build script, bun:test files). Each way
// Bun runs TypeScript — bun run, bun test, Bun.build — locks, or fails naming lockweave: a bad
// tag stops it at file:line:col, a project without the preload is refused when it loads lockweave's runtime,
// and tagged code given with -e or on stdin is refused by the preload.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, linkPackage } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';

const APP_FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'bundlers');
const BUN_FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'bun');
const APP_DIR = path.join(ROOT, 'test', '.tmp', 'routes', 'bun', 'app');
/** The binary of the `bun` devDependency's platform package (its postinstall, which npm may skip, only links it). */
const BUN = path.join(ROOT, 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun');
const SITES = ['app', 'orders', 'nightly', 'transfer', 'cancellable'];
const BAD_TAG_ERRORS = [
  /src\/bad-tag\.ts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag/,
  /src\/bad-tag\.ts:7:7 - error TS93025: @redisLock: @RedisLock is not @redisLock/,
];
const REFUSED = /lockweave: Bun is running TypeScript \(\S+\) without lockweave's Bun plugin/;

let redis: RedisServer;
let runs = 0;
const runChild = childRunner(2);

test.before(async () => {
  if (!fs.existsSync(BUN)) throw new Error(`no Bun binary at ${BUN}: run \`npm run setup\``);
  linkPackage(); // asserts that dist is built from the current transformer/
  fs.rmSync(APP_DIR, { recursive: true, force: true });
  fs.cpSync(APP_FIXTURE, APP_DIR, { recursive: true });
  fs.cpSync(BUN_FIXTURE, APP_DIR, { recursive: true });
  redis = await startRedisServer();
});

test.after.always(async () => {
  await redis?.stop();
});

function bun(args: readonly string[], env: Record<string, string> = {}): Promise<Ran> {
  return runChild(BUN, args, {
    cwd: APP_DIR,
    env: {
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      REDIS_URL: redis.url,
      RUN_ID: `bun-${++runs}`,
      LOCKWEAVE_CACHE_DIR: path.join(APP_DIR, '.woven-cache'),
      ...env,
    },
  });
}

function assertLocked(t: import('ava').ExecutionContext, ran: Ran): void {
  t.is(ran.status, 0, ran.output);
  const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
    results: Record<string, string[]>;
    cancelled: string;
    most: Record<string, number>;
  };
  for (const site of SITES) {
    t.is(printed.results[site].length, 3, site);
    for (const token of printed.results[site]) t.regex(token, /^[0-9a-f-]{36}$/, site);
  }
  t.deepEqual(printed.most, Object.fromEntries(SITES.map((site) => [site, 1])));
  t.is(printed.cancelled, 'gone');
}

test('bun run with the preload: every tagged method holds its key, one body at a time', async (t) => {
  assertLocked(t, await bun(['run', 'src/app.ts']));
});

test('bun test with the preload under [test]: the tagged methods hold their keys', async (t) => {
  const ran = await bun(['test', 'tests/locks.test.ts']);
  t.is(ran.status, 0, ran.output);
  t.regex(ran.output, /1 pass/);
});

test('Bun.build with lockweave/bun: the bundle, run by bun, holds every key', async (t) => {
  const built = await bun(['build-bun.ts'], { OUT: 'out/app' });
  t.is(built.status, 0, built.output);
  assertLocked(t, await bun([path.join('out', 'app', 'app.js')]));
});

test("Bun.build in a script run under the preload, without lockweave's plugin: the preload adds it, and the bundle holds every key", async (t) => {
  const built = await bun(['build-bun.ts'], { OUT: 'out/no-plugin', NO_PLUGIN: '1' });
  t.is(built.status, 0, built.output);
  assertLocked(t, await bun([path.join('out', 'no-plugin', 'app.js')]));
});

test('Bun.build with lockweave/bun: a tagged method in a .js file (allowJs) fails the build, naming the file and the fix, and leaves no bundle', async (t) => {
  const out = path.join('out', 'js-app');
  const built = await bun(['build-bun.ts'], { ENTRIES: 'js-app', OUT: out });
  t.not(built.status, 0, built.output);
  t.regex(
    built.output,
    /src\/refunds\.js holds @redisLock tags, but lockweave's esbuild and Bun plugins weave TypeScript files only[^\n]*Rename it to \.ts/,
  );
  t.false(fs.existsSync(path.join(APP_DIR, out, 'js-app.js')), 'a bundle was left');
});

test("Bun.build: a plugin before lockweave's that loads .ts files without the tag comments fails the build, naming them, and leaves no bundle", async (t) => {
  for (const strip of ['plugin', 'one']) {
    const out = path.join('out', `strip-${strip}`);
    const built = await bun(['build-bun.ts'], { OUT: out, STRIP_COMMENTS: strip });
    t.not(built.status, 0, built.output);
    t.regex(
      built.output,
      /src\/(?:app|jobs|orders)\.ts(?:, \S+)* holds? @redisLock tags, but a plugin or loader that ran before lockweave's handed/,
    );
    t.false(fs.existsSync(path.join(APP_DIR, out, 'app.js')), `${strip}: a bundle was left`);
  }
});

test("Bun.build: tagged TypeScript a plugin before lockweave's serves from memory, in a namespace of its own, fails the build and leaves no bundle", async (t) => {
  const out = path.join('out', 'virtual');
  const built = await bun(['build-bun.ts'], { OUT: out, VIRTUAL: '1', ENTRIES: 'virtual-entry' });
  t.not(built.status, 0, built.output);
  t.regex(
    built.output,
    /the build bundled virtual:orders\.ts, TypeScript that a plugin loaded in a namespace of its own/,
  );
  t.false(fs.existsSync(path.join(APP_DIR, out, 'virtual-entry.js')), 'a bundle was left');
});

test("a preload before lockweave's whose plugin loads .ts files without the tag comments: bun run is refused, naming a file (Bun shows it late: after start-up)", async (t) => {
  const ran = await bun(['--config=bunfig.stripped.toml', 'run', 'src/app.ts']);
  t.not(ran.status, 0, ran.output);
  t.regex(
    ran.output,
    /lockweave: Bun ran \S+\.ts without lockweave's route weaving it: a plugin registered before lockweave's loaded it/,
  );
  t.regex(ran.output, /preload = \["lockweave\/bun\/register", …\]/);
  t.notRegex(ran.stdout, /"most"/);
});

test('a bad tag stops bun run, bun test and Bun.build, each naming the tag at file:line:col', async (t) => {
  const [ran, tested, built] = await Promise.all([
    bun(['run', 'src/bad-tag.ts']),
    bun(['test', 'tests/bad-tag.test.ts']),
    bun(['build-bun.ts'], { ENTRIES: 'bad-tag', OUT: 'out/bad-tag' }),
  ]);
  for (const [what, result] of Object.entries({ ran, tested, built })) {
    t.not(result.status, 0, what);
    for (const error of BAD_TAG_ERRORS) t.regex(result.output, error, what);
    t.notRegex(result.output, /without the lock/, what);
  }
  t.false(fs.existsSync(path.join(APP_DIR, 'out', 'bad-tag', 'bad-tag.js')));
});

test('without the preload, bun run and bun test are refused when they load lockweave: no body runs unlocked', async (t) => {
  const [ran, tested] = await Promise.all([
    bun(['--config=bunfig.unwoven.toml', 'run', 'src/app.ts']),
    bun(['--config=bunfig.unwoven.toml', 'test', 'tests/locks.test.ts']),
  ]);
  for (const [what, result] of Object.entries({ ran, tested })) {
    t.not(result.status, 0, what);
    t.regex(result.output, REFUSED, what);
    t.regex(result.output, /preload = \["lockweave\/bun\/register"\]/, what);
  }
  t.notRegex(ran.stdout, /"most"/);
});

test('without the preload, a JavaScript entry that imports tagged TypeScript fails, naming the file (Bun shows it late: after start-up)', async (t) => {
  const result = await bun(['--config=bunfig.unwoven.toml', 'run', 'js-entry.mjs']);
  t.not(result.status, 0);
  t.regex(result.output, /lockweave: Bun ran \S+\.ts \(imported by js-entry\.mjs\) without a lockweave route/);
  t.regex(result.output, /preload = \["lockweave\/bun\/register"\]/);
});

test('with the preload, tagged code given with -e or on stdin is refused before its body runs; untagged code runs', async (t) => {
  // No file, so no plugin is asked for it, and this code never loads the runtime: the preload is
  // all there is to stop it.
  const code = [
    'class OrderService {',
    `  /** @${'redisLock'} businessFlag=evalOrder keyName=orderNo */`,
    '  async pay(orderNo: string): Promise<string> { return `ran ${orderNo}`; }',
    '}',
    "new OrderService().pay('B1').then((ran) => console.log('RESULT', ran));",
  ].join('\n');
  const given = await bun(['-e', code]);
  const piped = spawnSync(BUN, ['run', '-'], {
    cwd: APP_DIR,
    input: code,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1' },
  });
  for (const [what, output, status] of [
    ['-e', given.output, given.status],
    ['stdin', `${piped.stdout}${piped.stderr}`, piped.status],
  ] as const) {
    t.not(status, 0, `${what}: ${output}`);
    t.regex(output, /lockweave: the code given with -e, -p or on stdin holds @redisLock tags/, what);
    t.notRegex(output, /RESULT/, what);
  }
  const plain = await bun(['-e', "console.log('RESULT plain')"]);
  t.is(plain.status, 0, plain.output);
  t.regex(plain.stdout, /RESULT plain/);
});

test('lockweave/bun/register under Node refuses to load: it would weave nothing', async (t) => {
  const ran = await runChild(process.execPath, ['-e', "require('lockweave/bun/register')"], { cwd: APP_DIR });
  t.not(ran.status, 0);
  t.regex(ran.output, /lockweave\/bun\/register is a preload for Bun/);
});

test("require('lockweave/bun') is the plugin factory itself, and its .default the same", (t) => {
  const factory = require(path.join(ROOT, 'dist', 'transformer', 'routes', 'bun.js'));
  t.is(typeof factory, 'function');
  t.is(factory.default, factory);
  t.is(factory().name, 'lockweave');
});
