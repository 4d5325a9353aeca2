// The lockweave command line as a user meets it: --help, --version and wrong input for every
// command, where a credential URL in the wrong place is echoed as host:port only; `build` as the
// TypeScript 7 route (a project whose typescript is 7 gets JavaScript whose tagged methods hold
// their key in Redis, one body at a time, and a bad tag fails the build with its location);
// `check`'s toolchain audit (one project with every hole, one with none, one whose scripts carry a
// password, printed hidden); `verify` on tspc output (woven), plain tsc output and an esbuild
// bundle without the plugin (not woven), and lock specs that only share the site — a bundled
// dependency's, a stale build's — which do not count.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { TSPC } from '../helpers/tspc';
import { routeScratch } from '../helpers/route-scratch';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'cli');
// Copies under test/.tmp, where linkPackage() makes `lockweave/...` resolve to dist.
const TSC5 = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const COMMANDS = ['build', 'check', 'verify', 'show'];

const scratch = routeScratch('routes', 'cli');
const TMP = scratch.dir;

const runChild = childRunner(3);

function run(file: string, args: readonly string[], cwd = ROOT, env: Record<string, string> = {}): Promise<Ran> {
  return runChild(process.execPath, [file, ...args], { cwd, env: { REDIS_URL: scratch.redis().url, ...env } });
}

const lockweave = (args: readonly string[], cwd = ROOT) => run(CLI, args, cwd);

/** A copy of the app fixture; `typescript` names the package its node_modules/typescript links to. */
function appCopy(name: string, typescript?: string): string {
  const dir = path.join(TMP, name);
  fs.cpSync(path.join(FIXTURE, 'app'), dir, { recursive: true });
  if (typescript) {
    fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules', typescript), path.join(dir, 'node_modules', 'typescript'), 'dir');
  }
  return dir;
}

/** Runs the built app: 3 calls at once per tagged method; each body must find its key and be alone. */
async function assertLocks(t: import('ava').ExecutionContext, main: string, runId: string): Promise<void> {
  const result = await run(main, [], path.dirname(main), { RUN_ID: runId });
  t.is(result.status, 0, result.output);
  const printed = JSON.parse(result.stdout.trim().split('\n').pop()!) as {
    results: Record<string, string[]>;
    most: Record<string, number>;
  };
  for (const site of ['pay', 'ship']) {
    t.is(printed.results[site].length, 3, site);
    for (const token of printed.results[site])
      t.regex(token, /^[0-9a-f-]{36}$/, `${site}: the body found its key (CLI_ prefix) in Redis`);
  }
  t.deepEqual(printed.most, { pay: 1, ship: 1 }, 'one body at a time');
}

test('--help and -h print the usage with every command, exit 0; --version prints the package version', async (t) => {
  for (const flag of ['--help', '-h']) {
    const result = await lockweave([flag]);
    t.is(result.status, 0, result.output);
    for (const command of COMMANDS) t.regex(result.stdout, new RegExp(`^  ${command} `, 'm'));
  }
  const version = await lockweave(['--version']);
  t.is(version.status, 0);
  t.is(version.stdout.trim(), JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
});

for (const command of COMMANDS) {
  test(`lockweave ${command} --help prints its usage, options and exit codes, exit 0`, async (t) => {
    for (const flag of ['--help', '-h']) {
      const result = await lockweave([command, flag]);
      t.is(result.status, 0, result.output);
      t.regex(result.stdout, new RegExp(`^usage: lockweave ${command}`));
      t.regex(result.stdout, /-p, --project <tsconfig>/);
      t.regex(result.stdout, /Exit: 0 /);
    }
  });

  test(`lockweave ${command} with an unknown option names it, prints the usage, exit 2`, async (t) => {
    const result = await lockweave([command, '--frobnicate']);
    t.is(result.status, 2, result.output);
    t.regex(result.stderr, new RegExp(`unknown option --frobnicate for \`lockweave ${command}\``));
    t.regex(result.stderr, new RegExp(`usage: lockweave ${command}`));
  });
}

test('an unknown command or no command: the usage, exit 2; a flag without its value, exit 2', async (t) => {
  const unknown = await lockweave(['frobnicate']);
  t.is(unknown.status, 2);
  t.regex(unknown.stderr, /unknown command frobnicate/);
  t.regex(unknown.stderr, /usage: lockweave <command>/);
  t.is((await lockweave([])).status, 2);
  const noValue = await lockweave(['build', '-p']);
  t.is(noValue.status, 2);
  t.regex(noValue.stderr, /-p needs a value/);
  const badRoute = await lockweave(['show', 'x.ts', '--route', 'babel']);
  t.is(badRoute.status, 2);
  t.regex(badRoute.stderr, /--route babel: expected one of tspc, source/);
  const missing = await lockweave(['verify']);
  t.is(missing.status, 2);
  t.regex(missing.stderr, /missing <output dir or file>/);
});

test('a tsconfig that is not there: says which, exit 1', async (t) => {
  for (const command of ['build', 'check']) {
    const result = await lockweave([command, '-p', 'nowhere/tsconfig.json']);
    t.is(result.status, 1, result.output);
    t.regex(result.stderr, /nowhere\/tsconfig\.json: no such tsconfig/);
  }
});

/** The password of the credential URLs below; none of it may reach the CLI's output. */
const PASSWORD = 'S3cr3t-pa55';

function assertNoPassword(t: import('ava').ExecutionContext, ran: Ran, what: string): void {
  for (const piece of [PASSWORD, encodeURIComponent(PASSWORD), 'S3cr3t', 'pa55'])
    t.false(ran.output.includes(piece), `${what}: the output holds ${piece}`);
}

test('a credential URL where the command line expects none (after --cluster, without --redis, anywhere) is printed as host:port, never with its password', async (t) => {
  const url = `redis://:${PASSWORD}@10.0.0.5:7000`;
  const user = `rediss://alice-user:${PASSWORD}@10.0.0.5:7000`;
  const cases: Array<[string[], number, RegExp]> = [
    [
      ['locks', '--cluster', url],
      2,
      /unexpected argument a Redis URL \(10\.0\.0\.5:7000\): --cluster takes no value; name the server with --redis <url>/,
    ],
    [
      ['unlock', 'LOCK_payOrder_1', '--force', '--cluster', user],
      2,
      /unexpected argument a Redis URL \(10\.0\.0\.5:7000\): --cluster takes no value; name the server with --redis <url>/,
    ],
    [['locks', `--cluster=${url}`], 2, /--cluster takes no value; name the server with --redis <url>/],
    [['locks', url], 2, /unexpected argument a Redis URL \(10\.0\.0\.5:7000\); name the server with --redis <url>/],
    [['unlock', user, 'LOCK_payOrder_1'], 2, /unexpected argument a Redis URL \(10\.0\.0\.5:7000\)/],
    [['unlock', url, '--force'], 2, /the key is a Redis URL \(10\.0\.0\.5:7000\), not a lock key/],
    // A URL that does not parse (a raw #) is not shown at all.
    [['locks', `redis://:${PASSWORD}#@10.0.0.5:7000`], 2, /unexpected argument a URL \(not shown/],
    [['locks', `PASSWORD=${PASSWORD}`], 2, /unexpected argument PASSWORD=…/],
    [[url], 2, /unknown command a Redis URL \(10\.0\.0\.5:7000\)/],
    [['show', 'x.ts', '--route', url], 2, /--route a Redis URL \(10\.0\.0\.5:7000\): expected one of/],
    [['check', '-p', url], 1, /a Redis URL \(10\.0\.0\.5:7000\): no such tsconfig/],
    [['check', '--typescript', url], 1, /--typescript a Redis URL \(10\.0\.0\.5:7000\): no package\.json there/],
    [['verify', url], 1, /a Redis URL \(10\.0\.0\.5:7000\): no such file or directory/],
  ];
  for (const [args, status, said] of cases) {
    // No REDIS_URL and no server: each of these fails before any connection.
    const ran = await runChild(process.execPath, [CLI, ...args], { cwd: ROOT, env: { REDIS_URL: '' } });
    const what = args.join(' ').replaceAll(PASSWORD, '<password>');
    t.is(ran.status, status, what);
    t.regex(ran.stderr, said, what);
    assertNoPassword(t, ran, what);
  }
});

test('build with TypeScript 7 installed: emits what tsc would, and the tagged methods hold their key, one body at a time', async (t) => {
  const dir = appCopy('build-ts7', 'typescript7');
  const built = await lockweave(['build'], dir);
  t.is(built.status, 0, built.output);
  // outDir, declarations and source maps from the tsconfig, as tsc writes them.
  for (const name of ['main.js', 'orders.js', 'orders.d.ts', 'orders.js.map'])
    t.true(fs.existsSync(path.join(dir, 'dist', name)), name);
  t.regex(
    fs.readFileSync(path.join(dir, 'dist', 'orders.js'), 'utf8'),
    /lockweave_1\.defineLock\(\{ site: "OrderService\.pay", businessFlag: "payOrder", prefix: "CLI_" \}\)/,
  );
  await assertLocks(t, path.join(dir, 'dist', 'main.js'), 'build-ts7');
});

test('build fails on a bad tag with exit 1 and file:line:col, and the method it emits throws instead of running unlocked', async (t) => {
  const outDir = path.join(TMP, 'bad-tag-out');
  const result = await lockweave(['build', '-p', path.join(FIXTURE, 'bad-tag', 'tsconfig.json'), '--outDir', outDir]);
  t.is(result.status, 1, result.output);
  t.regex(
    result.stderr,
    /cli\/bad-tag\/src\/bad\.ts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag; did you mean businessFlag\?/,
  );
  t.regex(result.stderr, /Found 1 error\./);
  t.regex(
    fs.readFileSync(path.join(outDir, 'bad.js'), 'utf8'),
    /async pay\(orderNo\) \{\s*throw new Error\("@redisLock: unknown attribute bussinessFlag/,
  );
});

test('check prints the lock-order graph and fails on a cycle with TS93029 at both calls; build fails the same way', async (t) => {
  const tsconfig = path.join(FIXTURE, 'lock-cycle', 'tsconfig.json');
  const checked = await lockweave(['check', '-p', tsconfig]);
  t.is(checked.status, 1, checked.output);
  t.regex(checked.stdout, /payOrder → stock\s+Orders\.pay calls Stock\.reserve at .*lock-cycle\/src\/orders\.ts:10:11/);
  t.regex(
    checked.stdout,
    /stock → payOrder\s+Stock\.restock calls Orders\.refund at .*lock-cycle\/src\/stock\.ts:13:11/,
  );
  t.regex(checked.stdout, /cycle: payOrder → stock → payOrder \(can deadlock\)/);
  t.regex(
    checked.stderr,
    /orders\.ts:10:11 - error TS93029: @redisLock: Orders\.pay holds payOrder and calls Stock\.reserve/,
  );
  t.regex(
    checked.stderr,
    /stock\.ts:13:11 - error TS93029: @redisLock: Stock\.restock holds stock and calls Orders\.refund/,
  );
  const built = await lockweave(['build', '-p', tsconfig, '--outDir', path.join(TMP, 'lock-cycle-out')]);
  t.is(built.status, 1, built.output);
  t.regex(built.stderr, /Found 2 errors/);
});

test('locks and unlock --help print their usage, the Redis flags and exit codes', async (t) => {
  for (const command of ['locks', 'unlock']) {
    const result = await lockweave([command, '--help']);
    t.is(result.status, 0, result.output);
    t.regex(result.stdout, new RegExp(`^usage: lockweave ${command}`));
    t.regex(result.stdout, /--redis <url>/);
    t.regex(result.stdout, /Exit: 0 /);
  }
});

test('build reports a type error as tsc does, exit 1', async (t) => {
  const dir = appCopy('type-error');
  fs.appendFileSync(path.join(dir, 'src', 'orders.ts'), '\nexport const wrong: number = "text";\n');
  const result = await lockweave(['build', '--noEmit'], dir);
  t.is(result.status, 1, result.output);
  t.regex(result.stderr, /src\/orders\.ts:\d+:14 - error TS2322: Type 'string' is not assignable to type 'number'\./);
});

test('check lists every hole of a project whose scripts and configs run TypeScript without a lockweave route', async (t) => {
  const result = await lockweave(['check', '-p', path.join(FIXTURE, 'holes', 'tsconfig.json')]);
  t.is(result.status, 1, result.output);
  const holes: Array<[string, RegExp]> = [
    ['vite.config.ts', /vite strips types/],
    ['rollup.config.mjs', /rollup's TypeScript plugins/],
    ['webpack.config.js', /ts-loader, babel-loader or swc-loader/],
    ['rspack.config.js', /builtin:swc-loader/],
    ['jest.config.cjs', /jest transforms TypeScript with ts-jest/],
    ['.swcrc', /swc strips types/],
    ['babel.config.json', /babel's TypeScript preset/],
    ['scripts.build: tsc -p tsconfig.json', /plain tsc runs no transformer plugin/],
    ['scripts.build:patched: tspc -p tsconfig.bare.json', /no lockweave plugin entry: tspc weaves nothing/],
    ['scripts.dev: tsx watch src/orders.ts', /tsx strips types/],
    ['scripts.start: node src/orders.ts', /Node's type stripping/],
    ['scripts.start:ts-node: ts-node src/orders.ts', /ts-node compiles with plain TypeScript/],
    ['scripts.bundle: esbuild src/orders.ts --bundle', /its command line takes no plugins/],
    ['scripts/build.mjs (run by package.json scripts.bundle:api)', /runs esbuild without the lockweave plugin/],
    ['scripts.bundle:rolldown: rolldown -c', /rolldown strips types/],
    ['scripts.bundle:tsup: tsup', /tsup bundles with esbuild/],
    ['scripts.test:vitest: vitest run', /vitest transforms with vite/],
    ['scripts.run:bun: bun src/orders.ts', /bun transpiles TypeScript itself/],
    ['scripts.test:bun: bun test', /bun test transpiles the tests' TypeScript itself/],
    ['scripts.bundle:bun: bun build src/orders.ts', /bun build's command line takes no plugins/],
  ];
  const blocks = result.stderr.split(/\n(?= {2}\S)/);
  for (const [where, unlocked] of holes) {
    const block = blocks.find((b) => b.includes(where));
    t.truthy(block, `no hole reported for ${where}`);
    t.regex(block ?? '', unlocked, where);
    t.regex(block ?? '', /\n {4}fix: \S/, `${where} has a fix`);
  }
  t.regex(result.stdout, /1 tagged method in 1 file .*; 0 errors; 20 toolchain holes/);
  t.regex(result.stderr, /It cannot see shell scripts, CI files/);
});

/** The clean fixture (0 holes) with build scripts that call Bun.build, each run by a script; `preload` keeps its bunfig.toml. */
function bunBuildProject(name: string, preload: boolean): string {
  const dir = path.join(TMP, name);
  fs.cpSync(path.join(FIXTURE, 'clean'), dir, { recursive: true });
  if (!preload) fs.rmSync(path.join(dir, 'bunfig.toml'));
  const unwoven = "await Bun.build({ entrypoints: ['src/orders.ts'], outdir: 'out', target: 'bun' });\n";
  const files: Record<string, string> = {
    'build.ts': unwoven,
    'scripts/bun-build.mjs': `// Bun's bundler API, no plugin.\n${unwoven}`,
    'scripts/shebang.ts': `#!/usr/bin/env bun\n${unwoven}`,
    'scripts/imported-unused.ts': `import lockweave from 'lockweave/bun';\n${unwoven}`,
    // lockweave/bun/register puts lockweave's plugin into a Bun.build that lacks it.
    'scripts/registered.ts': `import 'lockweave/bun/register';\n${unwoven}`,
    'scripts/woven.ts':
      "import lockweave from 'lockweave/bun';\n" +
      "await Bun.build({ entrypoints: ['src/orders.ts'], outdir: 'out', target: 'bun', plugins: [lockweave()] });\n",
  };
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  Object.assign(manifest.scripts, {
    'bundle:bun': 'bun build.ts',
    'bundle:bun-run': 'bun run build.ts',
    'bundle:bun-flags': 'bun --bun --env-file=.env scripts/bun-build.mjs',
    'bundle:bun-quoted': 'cd . && bun run "scripts/bun-build.mjs"',
    'bundle:shebang': './scripts/shebang.ts',
    'bundle:imported-unused': 'bun scripts/imported-unused.ts',
    'bundle:registered': 'bun scripts/registered.ts',
    'bundle:woven': 'bun scripts/woven.ts',
    // `bun run build` names the package's own (woven) build script, not a file.
    'bundle:named': 'bun run build',
  });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  return dir;
}

test('check follows the files Bun runs into Bun.build: without lockweave/bun in its plugins and no bunfig preload, each is a hole', async (t) => {
  const dir = bunBuildProject('bun-build-scripts', false);
  const result = await lockweave(['check', '-p', path.join(dir, 'tsconfig.json')]);
  t.is(result.status, 1, result.output);
  const blocks = result.stderr.split(/\n(?= {2}\S)/);
  const flagged = [
    ['build.ts', 'bundle:bun'],
    ['build.ts', 'bundle:bun-run'],
    ['scripts/bun-build.mjs', 'bundle:bun-flags'],
    ['scripts/bun-build.mjs', 'bundle:bun-quoted'],
    ['scripts/shebang.ts', 'bundle:shebang'],
    ['scripts/imported-unused.ts', 'bundle:imported-unused'],
  ];
  for (const [file, script] of flagged) {
    const where = `${file} (run by package.json scripts.${script})`;
    const block = blocks.find((b) => b.includes(`/${where}`) || b.includes(`  ${where}`));
    t.truthy(block, `no hole reported for ${where}`);
    t.regex(
      block ?? '',
      /unlocked: this script runs Bun\.build without the lockweave plugin: every tagged method is bundled unlocked/,
      where,
    );
    t.regex(block ?? '', /fix: import lockweave from 'lockweave\/bun' and plugins: \[lockweave\(\)\]/, where);
  }
  t.is(result.stderr.match(/runs Bun\.build without the lockweave plugin/g)?.length, flagged.length, result.stderr);
  for (const file of ['registered.ts (run by', 'woven.ts (run by'])
    t.false(result.stderr.includes(file), `${file}: ${result.stderr}`);
  t.regex(result.stderr, /the esbuild and Bun\.build scripts a script runs/);
});

test("check passes Bun.build scripts that Bun runs with bunfig.toml's preload of lockweave/bun/register, which adds the plugin", async (t) => {
  const dir = bunBuildProject('bun-build-scripts-preloaded', true);
  const result = await lockweave(['check', '-p', path.join(dir, 'tsconfig.json')]);
  t.is(result.status, 0, result.output);
  t.regex(result.stdout, /; 0 errors; 0 toolchain holes/);
});

test('check reports the tools with no lockweave route, and the commands a wrapper runs from its quoted words', async (t) => {
  const dir = path.join(TMP, 'check-no-route');
  fs.cpSync(path.join(FIXTURE, 'clean'), dir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const scripts: Record<string, [string, RegExp]> = {
    'run:deno': ['deno run -A src/orders.ts', /Deno compiles TypeScript itself/],
    'bundle:farm': ['farm build', /Farm compiles TypeScript with its own Rust compiler/],
    'watch:tsc': ['tsc-watch --onSuccess "node dist/orders.js"', /tsc-watch compiles with the project's plain tsc/],
    'run:sucrase': ['sucrase ./src -d ./dist --transforms typescript', /strips or compiles types without the weave/],
    'run:esno': ['esno src/orders.ts', /tsx strips types/],
    'dev:concurrently': ['concurrently "tsc -w" "node --watch dist/orders.js"', /plain tsc runs no transformer plugin/],
    'dev:sh': ["sh -c 'tsx src/orders.ts'", /tsx strips types/],
    'dev:nodemon': ['nodemon --exec "tsx src/orders.ts"', /tsx strips types/],
  };
  for (const [name, [command]] of Object.entries(scripts)) manifest.scripts[name] = command;
  // Commands that weave are no hole: wrapped, or vite-node with vite.config's lockweave plugin.
  manifest.scripts['dev:woven'] = 'concurrently "node --import lockweave/register src/orders.ts" "echo ready"';
  manifest.scripts['run:vite-node'] = 'vite-node src/orders.ts';
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  const result = await lockweave(['check'], dir);
  t.is(result.status, 1, result.output);
  const blocks = result.stderr.split(/\n(?= {2}\S)/);
  for (const [name, [, unlocked]] of Object.entries(scripts)) {
    const block = blocks.find((b) => b.includes(`scripts.${name}`));
    t.truthy(block, `no hole reported for scripts.${name}: ${result.stderr}`);
    t.regex(block ?? '', unlocked, name);
  }
  t.false(
    blocks.some((b) => b.includes('scripts.dev:woven') || b.includes('scripts.run:vite-node')),
    result.stderr,
  );
  t.regex(result.stdout, new RegExp(`; ${Object.keys(scripts).length} toolchain holes`));
});

test('check passes a project whose every script and config weaves, and prints the tagged-method count', async (t) => {
  const result = await lockweave(['check', '-p', path.join(FIXTURE, 'clean', 'tsconfig.json')]);
  t.is(result.status, 0, result.output);
  t.regex(
    result.stdout,
    /lockweave check: 2 tagged methods in 1 file \(checked with TypeScript 5\.9\.\d+\); 0 errors; 0 toolchain holes \(audited 16 /,
  );
});

test('check prints a flagged script with its credentials hidden: URL user and password, NAME=value assignments, --password', async (t) => {
  const result = await lockweave(['check', '-p', path.join(FIXTURE, 'inline-credentials', 'tsconfig.json')]);
  t.is(result.status, 1, result.output);
  for (const line of [
    'scripts.dev: REDIS_URL=… tsx src/orders.ts',
    'scripts.start: PASSWORD=… node src/orders.ts',
    'scripts.start:ts-node: cross-env REDIS_PASSWORD=… ts-node src/orders.ts',
    'scripts.test: vitest run --redis rediss://…@127.0.0.1:6380',
    'scripts.run:bun: env DB_TOKEN=… bun src/orders.ts --password …',
  ])
    t.true(result.stderr.includes(`  package.json ${line}\n`), line);
  t.regex(result.stdout, /5 toolchain holes/);
  assertNoPassword(t, result, 'check');
});

test("check on a TypeScript 7 project: tags checked with lockweave's TypeScript 6, `tsc` in a script is a hole", async (t) => {
  const dir = appCopy('check-ts7', 'typescript7');
  const result = await lockweave(['check'], dir);
  t.is(result.status, 1, result.output);
  t.regex(
    result.stdout,
    /2 tagged methods in 3 files \(checked with lockweave's TypeScript 6\.0\.\d+ \(the project's is 7\.0\.\d+\)\)/,
  );
  t.regex(
    result.stderr,
    /package\.json scripts\.build: tsc -p tsconfig\.json\n {4}unlocked: TypeScript 7\.0\.\d+'s tsc is the native compiler: it ignores compilerOptions\.plugins/,
  );
  t.regex(result.stderr, /fix: replace `tsc` with `lockweave build`/);
  // The fix applied: the audit passes.
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ private: true, scripts: { build: 'lockweave build -p tsconfig.json' } }),
  );
  const fixed = await lockweave(['check'], dir);
  t.is(fixed.status, 0, fixed.output);
});

test('verify: tspc output passes; plain tsc output, the two side by side, and an esbuild bundle without the plugin fail, listing each missing method', async (t) => {
  const dir = appCopy('verify');
  const tspc = await run(TSPC, ['-p', 'tsconfig.json', '--outDir', 'out-tspc'], dir);
  t.is(tspc.status, 0, tspc.output);
  const woven = await lockweave(['verify', 'out-tspc'], dir);
  t.is(woven.status, 0, woven.output);
  t.regex(woven.stdout, /2 of 2 tagged methods woven, in 3 JavaScript files/);

  const tsc = await run(TSC5, ['-p', 'tsconfig.json', '--outDir', 'out-tsc'], dir);
  t.is(tsc.status, 0, tsc.output);
  const plain = await lockweave(['verify', 'out-tsc'], dir);
  t.is(plain.status, 1, plain.output);
  t.regex(plain.stderr, /2 tagged methods NOT woven into out-tsc/);
  t.regex(plain.stderr, /^ {2}src\/orders\.ts:9:3 - OrderService\.pay$/m);
  t.regex(plain.stderr, /^ {2}src\/orders\.ts:15:1 - ship$/m);

  // Both builds under one folder (an ESM and a CommonJS build, or a build left from before): the
  // woven one does not stand in for the other's file of the same source.
  fs.cpSync(path.join(dir, 'out-tspc'), path.join(dir, 'dual', 'esm'), { recursive: true });
  fs.cpSync(path.join(dir, 'out-tsc'), path.join(dir, 'dual', 'cjs'), { recursive: true });
  const dual = await lockweave(['verify', 'dual'], dir);
  t.is(dual.status, 1, dual.output);
  t.regex(
    dual.stderr,
    /dual\/cjs\/orders\.js, laid out as the build of src\/orders\.ts, does not lock 2 tagged methods of it/,
  );
  t.notRegex(dual.stderr, /dual\/esm/);
  t.is((await lockweave(['verify', 'out-tspc', 'out-tsc'], dir)).status, 1, 'two operands alike');
  fs.rmSync(path.join(dir, 'dual', 'cjs'), { recursive: true });
  t.is((await lockweave(['verify', 'dual'], dir)).status, 0, 'the woven build alone');

  // esbuild's API with no plugin: types and comments stripped, nothing woven; minified on top.
  const esbuild = require(path.join(ROOT, 'node_modules', 'esbuild')) as typeof import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(dir, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    platform: 'node',
    outfile: path.join(dir, 'out-esbuild', 'main.js'),
    external: ['ioredis', 'lockweave'],
    sourcemap: true,
    logLevel: 'silent',
  });
  const bundle = await lockweave(['verify', path.join('out-esbuild', 'main.js')], dir);
  t.is(bundle.status, 1, bundle.output);
  t.regex(bundle.stderr, /2 tagged methods NOT woven/);
  // The same bundler through lockweave/esbuild (minified: identifiers renamed, string literals kept) is woven.
  const plugin = require(
    path.join(ROOT, 'test', '.tmp', 'node_modules', 'lockweave', 'dist', 'transformer', 'routes', 'esbuild.js'),
  ) as () => import('esbuild').Plugin;
  await esbuild.build({
    entryPoints: [path.join(dir, 'src', 'main.ts')],
    absWorkingDir: dir,
    bundle: true,
    minify: true,
    platform: 'node',
    outfile: path.join(dir, 'out-woven', 'main.js'),
    external: ['ioredis', 'lockweave'],
    plugins: [plugin()],
    logLevel: 'silent',
  });
  const wovenBundle = await lockweave(['verify', 'out-woven'], dir);
  t.is(wovenBundle.status, 0, wovenBundle.output);
});

test('verify counts only lock specs the output really creates: woven code quoted in comments and strings is not a lock', async (t) => {
  const dir = appCopy('verify-quoted');
  // Documentation that quotes what the weave writes, for both tagged methods, once in a comment and
  // once in a string — as a user's docs or a test fixture might. Plain tsc keeps both in its output.
  fs.writeFileSync(
    path.join(dir, 'src', 'docs.ts'),
    [
      '// The weave writes: const pay_lock_1 = lockweave_1.defineLock({ site: "OrderService.pay", businessFlag: "payOrder" });',
      'export const EXAMPLE = \'lockweave_1.defineLock({ site: "ship", businessFlag: "ship" })\';',
      'export const MINIFIED = `o.defineLock({site:"OrderService.pay"}); o.defineLock({site:"ship"})`;',
      '',
    ].join('\n'),
  );
  const tsc = await run(TSC5, ['-p', 'tsconfig.json', '--outDir', 'out-tsc'], dir);
  t.is(tsc.status, 0, tsc.output);
  const plain = await lockweave(['verify', 'out-tsc'], dir);
  t.is(plain.status, 1, plain.output);
  t.regex(plain.stderr, /2 tagged methods NOT woven into out-tsc/);
  t.regex(plain.stdout, /0 of 2 tagged methods woven/);
});

/** esbuild's API, and lockweave/esbuild as the package the copies under test/.tmp load. */
const esbuildApi = () => require(path.join(ROOT, 'node_modules', 'esbuild')) as typeof import('esbuild');
const esbuildPlugin = () =>
  (
    require(
      path.join(ROOT, 'test', '.tmp', 'node_modules', 'lockweave', 'dist', 'transformer', 'routes', 'esbuild.js'),
    ) as () => import('esbuild').Plugin
  )();

test("verify: a bundled dependency's woven lock of the same site, with another businessFlag, does not stand in for the app's unwoven method", async (t) => {
  const dir = path.join(TMP, 'verify-collision');
  fs.cpSync(path.join(FIXTURE, 'verify-collision'), dir, { recursive: true });
  // @acme/orders, built with lockweave: its own OrderService.pay is woven, businessFlag "acmePay".
  const acme = path.join(dir, 'node_modules', '@acme', 'orders');
  fs.mkdirSync(acme, { recursive: true });
  fs.copyFileSync(path.join(dir, 'acme', 'package.json'), path.join(acme, 'package.json'));
  const tspc = await run(TSPC, ['-p', path.join('acme', 'tsconfig.json'), '--outDir', path.join(acme, 'dist')], dir);
  t.is(tspc.status, 0, tspc.output);
  t.regex(
    fs.readFileSync(path.join(acme, 'dist', 'index.js'), 'utf8'),
    /defineLock\(\{ site: "OrderService\.pay", businessFlag: "acmePay" \}\)/,
  );

  // The app bundled without the plugin (the mistake verify exists to catch): only acme's spec is in it.
  const esbuild = esbuildApi();
  for (const minify of [false, true]) {
    const out = `out-plain${minify ? '-min' : ''}`;
    await esbuild.build({
      entryPoints: [path.join(dir, 'src', 'main.ts')],
      absWorkingDir: dir,
      bundle: true,
      minify,
      platform: 'node',
      outfile: path.join(dir, out, 'bundle.js'),
      external: ['lockweave'],
      logLevel: 'silent',
    });
    t.regex(fs.readFileSync(path.join(dir, out, 'bundle.js'), 'utf8'), /acmePay/, 'the dependency is bundled');
    const result = await lockweave(['verify', path.join(out, 'bundle.js'), '-p', 'tsconfig.json'], dir);
    t.is(result.status, 1, result.output);
    t.regex(result.stdout, /0 of 1 tagged method woven/);
    t.regex(result.stderr, /^ {2}src\/pay\.ts:3:3 - OrderService\.pay$/m);
    t.regex(result.stderr, /lock spec of that site is another: businessFlag "acmePay" \(the tag: "payOrder"\)/);
  }

  // With the plugin, the app's own spec is in the bundle beside acme's: woven.
  await esbuild.build({
    entryPoints: [path.join(dir, 'src', 'main.ts')],
    absWorkingDir: dir,
    bundle: true,
    minify: true,
    platform: 'node',
    outfile: path.join(dir, 'out-woven', 'bundle.js'),
    external: ['lockweave'],
    plugins: [esbuildPlugin()],
    logLevel: 'silent',
  });
  const woven = await lockweave(['verify', 'out-woven', '-p', 'tsconfig.json'], dir);
  t.is(woven.status, 0, woven.output);
  t.regex(woven.stdout, /1 of 1 tagged method woven/);
});

test('verify: a spec of the same site and businessFlag with another prefix or lockTime than the tag implies (a stale build) does not count', async (t) => {
  const dir = appCopy('verify-stale');
  const tspc = await run(TSPC, ['-p', 'tsconfig.json', '--outDir', 'out-tspc'], dir);
  t.is(tspc.status, 0, tspc.output);
  t.is((await lockweave(['verify', 'out-tspc'], dir)).status, 0);

  // The plugin's default prefix changed since the build: both specs say "CLI_", the tags now "NEW_".
  const tsconfig = path.join(dir, 'tsconfig.json');
  const original = fs.readFileSync(tsconfig, 'utf8');
  fs.writeFileSync(tsconfig, original.replace('"prefix": "CLI_"', '"prefix": "NEW_"'));
  const prefix = await lockweave(['verify', 'out-tspc'], dir);
  t.is(prefix.status, 1, prefix.output);
  t.regex(prefix.stdout, /0 of 2 tagged methods woven/);
  t.regex(prefix.stderr, /^ {2}src\/orders\.ts:9:3 - OrderService\.pay$/m);
  t.regex(prefix.stderr, /^ {2}src\/orders\.ts:15:1 - ship$/m);
  t.regex(prefix.stderr, /prefix "CLI_" \(the tag: "NEW_"\)/);
  fs.writeFileSync(tsconfig, original);

  // pay's tag now asks for lockTime=60s, which the built spec does not carry.
  const orders = path.join(dir, 'src', 'orders.ts');
  fs.writeFileSync(
    orders,
    fs
      .readFileSync(orders, 'utf8')
      .replace(
        'businessFlag=payOrder keyName=order.orderNo',
        'businessFlag=payOrder keyName=order.orderNo lockTime=60s',
      ),
  );
  const lockTime = await lockweave(['verify', 'out-tspc'], dir);
  t.is(lockTime.status, 1, lockTime.output);
  t.regex(lockTime.stdout, /1 of 2 tagged methods woven/);
  t.regex(lockTime.stderr, /^ {2}src\/orders\.ts:9:3 - OrderService\.pay$/m);
  t.notRegex(lockTime.stderr, / - ship$/m);
  t.regex(lockTime.stderr, /lockTime unset \(the tag: 60000\)/);
});

test('verify: a woven bundle whose spec carries numbers and booleans passes, as esbuild and terser minify them (6e4, !0, !1)', async (t) => {
  const dir = appCopy('verify-minified');
  const orders = path.join(dir, 'src', 'orders.ts');
  fs.writeFileSync(
    orders,
    fs
      .readFileSync(orders, 'utf8')
      .replace(
        'businessFlag=payOrder keyName=order.orderNo',
        'businessFlag=payOrder keyName=order.orderNo lockTime=60s retries=0 fencing=true watchdog=false',
      ),
  );
  const esbuild = esbuildApi();
  for (const minify of [false, true]) {
    const outfile = path.join(dir, `out-${minify ? 'min' : 'plain'}`, 'main.js');
    await esbuild.build({
      entryPoints: [path.join(dir, 'src', 'main.ts')],
      absWorkingDir: dir,
      bundle: true,
      minify,
      platform: 'node',
      outfile,
      external: ['ioredis', 'lockweave'],
      plugins: [esbuildPlugin()],
      logLevel: 'silent',
    });
  }
  const minified = fs.readFileSync(path.join(dir, 'out-min', 'main.js'), 'utf8');
  t.regex(minified, /lockTime:6e4/);
  t.regex(minified, /fencing:!0/);
  t.regex(minified, /watchdog:!1/);
  // terser over the unminified bundle.
  const terser = require(path.join(ROOT, 'node_modules', 'terser')) as {
    minify(code: string, options: object): Promise<{ code?: string }>;
  };
  const tersed = await terser.minify(fs.readFileSync(path.join(dir, 'out-plain', 'main.js'), 'utf8'), {
    compress: true,
    mangle: true,
  });
  fs.mkdirSync(path.join(dir, 'out-terser'));
  fs.writeFileSync(path.join(dir, 'out-terser', 'main.js'), tersed.code!);
  t.regex(tersed.code!, /lockTime:6e4/);
  for (const out of ['out-plain', 'out-min', 'out-terser']) {
    const result = await lockweave(['verify', out], dir);
    t.is(result.status, 0, `${out}: ${result.output}`);
    t.regex(result.stdout, /2 of 2 tagged methods woven/, out);
  }
  // The same bundle checked against a tag that asks for fencing=false: not this spec.
  fs.writeFileSync(orders, fs.readFileSync(orders, 'utf8').replace('fencing=true', 'fencing=false'));
  const changed = await lockweave(['verify', 'out-terser'], dir);
  t.is(changed.status, 1, changed.output);
  t.regex(changed.stderr, /fencing true \(the tag: false\)/);
});

test('show --route tspc prints woven JavaScript; --route source the woven TypeScript the bundler and loader routes see', async (t) => {
  const file = path.join(FIXTURE, 'app', 'src', 'orders.ts');
  const js = await lockweave(['show', file]);
  t.is(js.status, 0, js.output);
  t.regex(
    js.stdout,
    /const lease_1 = await pay_lock_1\.acquire\(order\?\.orderNo\);\s*try \{\s*return await lease_1\.run\(async \(\) => \{/,
  );
  t.notRegex(js.stdout, /: Promise<string>/);
  const ts = await lockweave(['show', file, '--route', 'source']);
  t.is(ts.status, 0, ts.output);
  t.regex(
    ts.stdout,
    /async pay\(order: Order\): Promise<string> \{ const lease_1 = await pay_lock_1\.acquire\(order\?\.orderNo\); try \{ return await lease_1\.run\(async \(\) => \{/,
  );
  t.regex(ts.stdout, /defineLock\(\{ site: "OrderService\.pay", businessFlag: "payOrder", prefix: "CLI_" \}\)/);
  const bad = await lockweave(['show', path.join(FIXTURE, 'bad-tag', 'src', 'bad.ts'), '--route', 'source']);
  t.is(bad.status, 1);
  t.regex(bad.stderr, /bad\.ts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag/);
});
