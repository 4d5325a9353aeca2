// What `npm install lockweave` puts into a service, and what the build-time parts do without their tools.
//
//   A production install holds the runtime and its Redis client: package.json pulls nothing else,
//   and nothing the runtime entries load reaches a compiler or bundler glue — checked on the
//   compiled import graph and by taking a real lock in a process where no build tool can load.
//   Each build-time route, its compiler or glue missing, stops with the line that installs it,
//   and its tagged method never runs. The weave's TypeScript is the project's 5.x/6.x, or
//   TypeScript 6 installed beside a 7 as `typescript6`.
//
// No network here: what an install pulls is what package.json says (dependencies, and the peers
// npm installs — the ones not marked optional). scripts/production-install.sh measures a real one.
import test from 'ava';
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { projectCopy, routeScratch } from '../helpers/route-scratch';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'install');
const HIDE = path.join(ROOT, 'test', 'install', 'hide-packages.cjs');
const DIST = path.join(ROOT, 'dist');
const NODE24 = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
/** Everything that only builds: none may load where a woven service runs. */
const BUILD_TOOLS = ['typescript', 'typescript6', 'magic-string', 'ts-patch'];
/** What the runtime may import: its id source and the Redis clients (the user's). */
const RUNTIME_PACKAGES = ['uuid', 'ioredis', 'redis', '@redis/client'];

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;

const scratch = routeScratch('install');
const TMP = scratch.dir;

const runChild = childRunner(2);

/** `binary` with `hidden` packages unresolvable, no woven-file cache, cwd `cwd`. */
function hiding(
  hidden: readonly string[],
  args: readonly string[],
  cwd = TMP,
  binary = process.execPath,
): Promise<Ran> {
  return runChild(binary, ['--require', HIDE, ...args], {
    cwd,
    env: { LOCKWEAVE_HIDE: hidden.join(','), LOCKWEAVE_CACHE: 'off', REDIS_URL: scratch.redis().url },
  });
}

/** A copy of the fixture app; `typescript` names the package its node_modules/typescript links to. */
const app = (name: string, typescript?: string) => projectCopy(FIXTURE, path.join(TMP, name), typescript);

test("package.json: a production install pulls the runtime's packages only; the build tools are optional peers", (t) => {
  const optional = (name: string) => manifest.peerDependenciesMeta?.[name]?.optional === true;
  // npm installs dependencies and every peer not marked optional.
  const pulled = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optional(name)),
  ];
  t.deepEqual(
    pulled.filter((name) => !RUNTIME_PACKAGES.includes(name)),
    [],
    'a production install pulls only the runtime and its client',
  );
  const { BUILD_DEPENDENCIES } = require(path.join(DIST, 'transformer', 'build-dependency.js')) as {
    BUILD_DEPENDENCIES: Record<string, unknown>;
  };
  for (const name of Object.keys(BUILD_DEPENDENCIES)) {
    t.truthy(manifest.devDependencies?.[name], `${name}: a devDependency, for this repo's own builds and tests`);
    // typescript6 is the npm alias a TypeScript 7 project installs; an alias makes no peer range.
    if (name !== 'typescript6')
      t.true(manifest.peerDependencies?.[name] !== undefined && optional(name), `${name}: an optional peer`);
  }
});

test('dist/runtime, its CommonJS and ES module entries, imports no build tool, directly or through another file', (t) => {
  const runtimeDir = path.join(DIST, 'runtime');
  const seen = new Set<string>();
  const bare = new Set<string>();
  const queue = [path.join(runtimeDir, 'index.js'), path.join(runtimeDir, 'index.mjs')];
  const IMPORT =
    /\brequire\(\s*["']([^"']+)["']\s*\)|\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;
  for (let file = queue.shift(); file !== undefined && seen.size < 500; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? match[4];
      if (!specifier.startsWith('.')) {
        bare.add(specifier);
        continue;
      }
      const target = [specifier, `${specifier}.js`, path.join(specifier, 'index.js')]
        .map((s) => path.resolve(path.dirname(file), s))
        .find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
      t.truthy(target, `${path.relative(DIST, file)} imports ${specifier}, which is not there`);
      t.false(
        path.relative(runtimeDir, target ?? '').startsWith('..'),
        `${path.relative(DIST, file)} imports ${specifier}, outside dist/runtime`,
      );
      if (target) queue.push(target);
    }
  }
  // The entry is one file (scripts/bundle-runtime.js): the walk reached the runtime's code when it saw ioredis.
  t.true(bare.has('ioredis'), "the walk found the runtime's code");
  const packageOf = (specifier: string) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');
  const foreign = [...bare].filter(
    (s) => !s.startsWith('node:') && !builtinModules.includes(s) && !RUNTIME_PACKAGES.includes(packageOf(s)),
  );
  t.deepEqual(foreign, []);
});

test("a woven method's lock works in a process where no build tool can be loaded, from the CommonJS and the ES module entry", async (t) => {
  const script = `
    const lockweave = require(${JSON.stringify(path.join(DIST, 'runtime', 'index.js'))});
    const { Redis } = require('ioredis');
    (async () => {
      const esm = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'runtime', 'index.mjs')).href)});
      lockweave.configure({ redis: process.env.REDIS_URL });
      const probe = new Redis(process.env.REDIS_URL);
      // What a woven method does: defineLock() once, run() around the body.
      const pay = esm.defineLock({ site: 'Orders.pay', businessFlag: 'payOrder', prefix: 'INSTALL_' });
      const held = await pay.run('A1', async () => probe.get('INSTALL_payOrder_A1'));
      const left = await probe.exists('INSTALL_payOrder_A1');
      const loaded = Object.keys(require.cache).filter((file) => /node_modules[\\\\/](typescript6?|magic-string|ts-patch)[\\\\/]/.test(file));
      console.log(JSON.stringify({ sameRuntime: esm.defineLock === lockweave.defineLock, held, left, loaded }));
      probe.disconnect();
      await lockweave.close();
    })().catch((error) => { console.error(error); process.exitCode = 1; });
  `;
  const ran = await hiding(BUILD_TOOLS, ['-e', script]);
  t.is(ran.status, 0, ran.output);
  const printed = JSON.parse(ran.stdout.trim().split('\n').pop()!) as {
    sameRuntime: boolean;
    held: string | null;
    left: number;
    loaded: string[];
  };
  t.true(printed.sameRuntime);
  t.regex(printed.held ?? '', /^[0-9a-f-]{36}$/, 'the body found its key in Redis, holding a token');
  t.is(printed.left, 0, 'released');
  t.deepEqual(printed.loaded, []);
});

/** The message of a missing build tool: lockweave, who needs it, the install line; nothing ran unlocked. */
function assertLoud(
  t: import('ava').ExecutionContext,
  ran: Ran,
  missing: RegExp,
  neededBy: RegExp,
  install: string,
): void {
  t.not(ran.status, 0, ran.output);
  t.regex(ran.output, missing);
  t.regex(ran.output, neededBy);
  t.true(ran.output.includes(`Install it where the weave runs: ${install}`), ran.output);
  t.notRegex(ran.output, /started without the lock/);
}

test('lockweave/register without magic-string, or without any TypeScript 5.x/6.x: the start fails with the install line, the method never runs', async (t) => {
  const dir = app('register');
  const register = ['--import', path.join(DIST, 'transformer', 'routes', 'register.js'), 'app.ts'];
  const noMagicString = await hiding(['magic-string'], register, dir, NODE24);
  assertLoud(
    t,
    noMagicString,
    /lockweave: magic-string is not installed\./,
    /lockweave\/register, lockweave\/jest and the bundler plugins/,
    'npm install -D magic-string',
  );
  const noCompiler = await hiding(['typescript', 'typescript6'], register, dir, NODE24);
  assertLoud(
    t,
    noCompiler,
    /lockweave: no TypeScript compiler is installed \(5\.x or 6\.x\)\./,
    /lockweave\/register/,
    'npm install -D typescript@6',
  );
});

test('the bundler plugins and lockweave/jest without their glue: the build fails with the install line', async (t) => {
  const dir = app('bundlers');
  const file = path.join(dir, 'app.ts');
  const routes = path.join(DIST, 'transformer', 'routes');
  const attempt = (body: string) => `
    const code = require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8');
    try { ${body}; console.log('started without the lock: the route handed on', typeof out); }
    catch (error) { console.error(error.message); process.exitCode = 1; }
  `;
  const rollup = await hiding(
    ['magic-string'],
    [
      '-e',
      attempt(
        `const out = require(${JSON.stringify(path.join(routes, 'rollup.js'))})().transform.handler.call({ addWatchFile() {} }, code, ${JSON.stringify(file)})`,
      ),
    ],
  );
  assertLoud(t, rollup, /magic-string is not installed/, /the bundler plugins/, 'npm install -D magic-string');
  const jest = await hiding(
    ['magic-string'],
    [
      '-e',
      attempt(
        `const out = require(${JSON.stringify(path.join(routes, 'jest.js'))}).default.process(code, ${JSON.stringify(file)}, { configString: '{}' })`,
      ),
    ],
  );
  assertLoud(t, jest, /magic-string is not installed/, /lockweave\/jest/, 'npm install -D magic-string');
  // webpack's and rspack's loader (their plugin is a rule that runs it).
  const loader = await hiding(
    ['magic-string'],
    [
      '-e',
      attempt(
        `let out; require(${JSON.stringify(path.join(routes, 'webpack-loader.js'))}).call({ resource: ${JSON.stringify(file)}, resourcePath: ${JSON.stringify(file)}, getOptions: () => ({}), addDependency() {}, callback(error, code) { if (error) throw error; out = code; } }, code)`,
      ),
    ],
  );
  assertLoud(t, loader, /magic-string is not installed/, /the bundler plugins/, 'npm install -D magic-string');
});

test("the weave's TypeScript: the project's 5.x/6.x; on a TypeScript 7 project the typescript6 beside it, else the line that installs it", async (t) => {
  const ts7 = app('ts7', 'typescript7');
  const chosen = (dir: string | undefined) => `
    try { console.log(JSON.stringify(require(${JSON.stringify(path.join(DIST, 'transformer', 'typescript.js'))}).ownTypeScriptPackage(${JSON.stringify(dir)}))); }
    catch (error) { console.error(error.message); process.exitCode = 1; }
  `;
  const own = await hiding([], ['-e', chosen(undefined)]);
  t.is(own.status, 0, own.output);
  t.like(JSON.parse(own.stdout), { name: 'typescript' }, 'the typescript lockweave resolves as a peer');
  t.true([5, 6].includes(JSON.parse(own.stdout).major), own.stdout);
  const beside = await hiding([], ['-e', chosen(ts7)]);
  t.is(beside.status, 0, beside.output);
  t.like(JSON.parse(beside.stdout), { name: 'typescript6', major: 6 });
  const missing = await hiding(['typescript6'], ['-e', chosen(ts7)]);
  assertLoud(
    t,
    missing,
    /the project's typescript is 7\.\d+\.\d+, the native compiler, which has no JavaScript API\./,
    /lockweave's command line/,
    'npm install -D typescript6@npm:typescript@^6',
  );
});

test('lockweave build on a TypeScript 7 project without TypeScript 6 beside it: exit 1 with the install line, nothing written', async (t) => {
  const dir = app('build-ts7', 'typescript7');
  const built = await hiding(['typescript6'], [path.join(DIST, 'cli', 'main.js'), 'build'], dir);
  t.is(built.status, 1, built.output);
  t.regex(built.stderr, /^lockweave: the project's typescript is 7\.\d+\.\d+, the native compiler/);
  t.true(built.stderr.includes('npm install -D typescript6@npm:typescript@^6'), built.stderr);
  t.notRegex(built.stderr, /\n\s+at /, 'a message, not a stack');
  t.false(fs.existsSync(path.join(dir, 'dist')));
});
