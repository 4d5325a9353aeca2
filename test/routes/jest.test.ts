// jest 30, run as users run it: the lockweave/jest transformer (CommonJS and native ES modules),
// and ts-jest with lockweave/ts-jest among its astTransformers (language service, isolatedModules
// with CommonJS and with nodenext, a warm jest cache, beside ts-patch's compiler). A tagged
// method's body finds its key in Redis and is alone (3 calls at once); a bad tag stops the test
// file with file:line:col. A jest worker whose transformers do not weave (plain ts-jest, ts-jest
// given only ts-patch's compiler) is refused by lockweave's runtime, naming the fix.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, linkPackage } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'jest');
// Run from a copy under test/.tmp, where linkPackage() makes `lockweave/...` resolve to dist.
const PROJECT = path.join(ROOT, 'test', '.tmp', 'routes', 'jest');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const NODES = {
  'Node 22': path.join(ROOT, 'node_modules', 'node22', 'bin', 'node'),
  'Node 24': path.join(ROOT, 'node_modules', 'node24', 'bin', 'node'),
};
const BAD_TAG = /src\/bad-tag\.ts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag/;

let redis: RedisServer;

test.before(async () => {
  linkPackage();
  fs.rmSync(PROJECT, { recursive: true, force: true });
  fs.cpSync(FIXTURE, PROJECT, { recursive: true });
  redis = await startRedisServer();
});

test.after.always(async () => {
  await redis?.stop();
});

// Two jest runs at a time: each starts workers and a compiler.
const runChild = childRunner(2);
let runs = 0;

function jest(binary: string, args: string[], nodeFlags: string[] = [], dir = PROJECT, cached = false): Promise<Ran> {
  // --no-cache: every run compiles, so a result never comes from an earlier run's output.
  const cache = cached ? [] : ['--no-cache'];
  return runChild(binary, [...nodeFlags, JEST, '--rootDir', dir, '--ci', ...cache, '--colors=false', ...args], {
    cwd: dir,
    env: { REDIS_URL: redis.url, RUN_ID: `run${++runs}`, FORCE_COLOR: '0' },
  });
}

for (const [nodeName, binary] of Object.entries(NODES)) {
  test(`${nodeName}, lockweave/jest: a tagged method holds its key in Redis, one body at a time`, async (t) => {
    const result = await jest(binary, ['tests/locks']);
    t.is(result.status, 0, result.output);
    t.regex(result.output, /✓ a tagged method holds its key in Redis, one body at a time/);
    t.regex(result.output, /✓ keyless, several keys and a signal: each holds its keys, one body at a time/);
  });

  test(`${nodeName}, lockweave/jest: a bad tag stops the test file with file:line:col`, async (t) => {
    const result = await jest(binary, ['tests/bad-tag']);
    t.not(result.status, 0);
    t.regex(result.output, BAD_TAG);
    t.notRegex(result.output, /started without the lock/);
  });
}

test("lockweave/jest given JavaScript too ('^.+\\.[jt]sx?$', allowJs): a tagged method in a .js file holds its key, one body at a time", async (t) => {
  const result = await jest(NODES['Node 24'], ['-c', 'jest.allow-js.config.cjs', 'tests/refunds']);
  t.is(result.status, 0, result.output);
  t.regex(result.output, /✓ a tagged method in a \.js file holds its key in Redis, one body at a time/);
});

test("lockweave/jest given TypeScript only ('^.+\\.tsx?$'): a test that loads a tagged .js file is refused, naming it", async (t) => {
  const result = await jest(NODES['Node 24'], ['tests/refunds']);
  t.not(result.status, 0);
  t.regex(
    result.output,
    /lockweave: jest gave \S*src\/refunds\.js, which holds @redisLock tags, to a transformer other than lockweave's/,
  );
  t.notRegex(result.output, /is not in Redis while the body runs/);
});

test('Node 24, lockweave/jest with native ES modules (supportsStaticESM): the method holds its key', async (t) => {
  const result = await jest(
    NODES['Node 24'],
    ['-c', 'jest.esm.config.cjs', 'tests/locks'],
    ['--experimental-vm-modules'],
  );
  t.is(result.status, 0, result.output);
  t.regex(result.output, /✓ a tagged method holds its key in Redis, one body at a time/);
  t.regex(result.output, /✓ keyless, several keys and a signal: each holds its keys, one body at a time/);
});

const LOCKS = /✓ a tagged method holds its key in Redis, one body at a time/;
const SHAPES = /✓ keyless, several keys and a signal: each holds its keys, one body at a time/;
const REFUSED =
  /lockweave: jest is running TypeScript \(locks\.test\.ts\) without a lockweave transformer[\s\S]*astTransformers: \{ before: \['lockweave\/ts-jest'\] \}/;

/** The fixture with its tsconfig in isolatedModules mode on `module`, in a directory of its own. */
function isolatedProject(module: string): string {
  const dir = `${PROJECT}-isolated-${module}`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const tsconfig = path.join(dir, 'tsconfig.json');
  const text = fs.readFileSync(tsconfig, 'utf8');
  fs.writeFileSync(tsconfig, text.replace('"module": "commonjs",', `"module": "${module}", "isolatedModules": true,`));
  return dir;
}

test('ts-jest with lockweave/ts-jest (language service): the method holds its key', async (t) => {
  const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest.config.cjs', 'tests/locks']);
  t.is(result.status, 0, result.output);
  t.regex(result.output, LOCKS);
  t.regex(result.output, SHAPES);
});

for (const module of ['commonjs', 'nodenext']) {
  test(`ts-jest with lockweave/ts-jest, isolatedModules, module ${module}: the method holds its key`, async (t) => {
    const dir = isolatedProject(module);
    const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest.config.cjs', 'tests/locks'], [], dir);
    t.is(result.status, 0, result.output);
    t.regex(result.output, LOCKS);
    t.regex(result.output, SHAPES);
  });
}

test("ts-jest with lockweave/ts-jest: a second run answered by jest's cache still locks", async (t) => {
  const cache = path.join(PROJECT, '.jest-cache');
  fs.rmSync(cache, { recursive: true, force: true });
  const args = ['-c', 'jest.ts-jest.config.cjs', '--cacheDirectory', cache, 'tests/locks'];
  const cold = await jest(NODES['Node 24'], args, [], PROJECT, true);
  t.is(cold.status, 0, cold.output);
  const warm = await jest(NODES['Node 24'], args, [], PROJECT, true);
  t.is(warm.status, 0, warm.output);
  t.regex(warm.output, LOCKS);
});

test('ts-jest with lockweave/ts-jest: a bad tag stops the test file with file:line:col', async (t) => {
  const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest.config.cjs', 'tests/bad-tag']);
  t.not(result.status, 0);
  t.regex(result.output, BAD_TAG);
  t.notRegex(result.output, /started without the lock/);
});

test("ts-jest with ts-patch's compiler and lockweave/ts-jest in one emit: each method is woven once and locks", async (t) => {
  const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest-both.config.cjs', 'tests/locks']);
  t.is(result.status, 0, result.output);
  t.regex(result.output, LOCKS);
  t.regex(result.output, SHAPES);
});

test('lockweave/jest with a JavaScript setup file that loads the runtime before the test file is compiled: the method holds its key', async (t) => {
  const result = await jest(NODES['Node 24'], ['-c', 'jest.setup-js.config.cjs', 'tests/locks']);
  t.is(result.status, 0, result.output);
  t.regex(result.output, LOCKS);
});

for (const [name, config] of [
  ['plain ts-jest', 'jest.ts-jest-plain.config.cjs'],
  ["ts-jest given only ts-patch's compiler", 'jest.ts-jest-patch.config.cjs'],
  ["ts-jest in a pattern before lockweave/jest's", 'jest.ts-jest-first.config.cjs'],
]) {
  test(`${name}: lockweave's runtime refuses the worker before any body runs, naming the fix`, async (t) => {
    const result = await jest(NODES['Node 24'], ['-c', config, 'tests/locks']);
    t.not(result.status, 0);
    t.regex(result.output, REFUSED);
    t.notRegex(result.output, /is not in Redis while the body runs/);
  });
}

for (const [name, config] of [
  ['lockweave/jest', 'jest.split.config.cjs'],
  ['lockweave/jest, with only the tests as roots,', 'jest.split-roots.config.cjs'],
  ['ts-jest with lockweave/ts-jest', 'jest.ts-jest-split.config.cjs'],
]) {
  test(`${name} given the test files and plain ts-jest the tagged code they test: the test file fails, naming the tagged files`, async (t) => {
    const result = await jest(NODES['Node 24'], ['-c', config, 'tests/locks']);
    t.not(result.status, 0);
    t.regex(
      result.output,
      /lockweave: jest's transform gives TypeScript that holds @redisLock tags to a transformer that does not weave[^\n]*src\/payments\.ts \(to ts-jest, pattern \^\.\+\\\.ts\$\)/,
    );
    t.notRegex(result.output, /is not in Redis while the body runs/);
  });
}

for (const [name, config] of [
  ['lockweave/jest', 'jest.config.cjs'],
  ['ts-jest with lockweave/ts-jest', 'jest.ts-jest.config.cjs'],
]) {
  test(`${name}: a woven module that imports a woven module locks (its locks are defined after its imports)`, async (t) => {
    const result = await jest(NODES['Node 24'], ['-c', config, 'tests/chained']);
    t.is(result.status, 0, result.output);
  });
}

for (const [name, config, file] of [
  ['lockweave/jest', 'jest.split.config.cjs', 'outside-root.test.ts'],
  ['lockweave/jest, no lock taken,', 'jest.split.config.cjs', 'outside-root-nolock.test.ts'],
  ['ts-jest with lockweave/ts-jest', 'jest.ts-jest-other.config.cjs', 'outside-root.test.ts'],
]) {
  test(`${name} given the test files, plain ts-jest tagged code outside the rootDir (${file}): the test file is refused, naming it`, async (t) => {
    // rootDir tests/: the transformers' look at the config does not reach ../src; the runtime asks
    // jest's registry (before the tests, at each woven module and at the first lock).
    const result = await jest(NODES['Node 24'], ['-c', `../${config}`, file], [], path.join(PROJECT, 'tests'));
    t.not(result.status, 0);
    t.regex(
      result.output,
      /lockweave: jest gave \S*src\/payments\.ts, which holds @redisLock tags, to a transformer other than lockweave's/,
    );
  });
}

test('the routing check: ts-jest with lockweave/ts-jest weaves, transformIgnorePatterns are not transformed, any other transformer is named', (t) => {
  const { misroutedTags } = require(
    path.join(ROOT, 'dist', 'transformer', 'routes', 'jest-routing.js'),
  ) as typeof import('../../transformer/routes/jest-routing');
  const self = path.join(ROOT, 'dist', 'transformer', 'routes', 'jest.js');
  const tsJest = path.join(ROOT, 'node_modules', 'ts-jest', 'dist', 'index.js');
  const babel = path.join(ROOT, 'node_modules', 'babel-jest', 'build', 'index.js');
  const config = (transform: Array<[string, string, unknown]>, transformIgnorePatterns: string[] = []) => ({
    rootDir: PROJECT,
    transform,
    transformIgnorePatterns,
  });
  let key = 0;
  const check = (c: ReturnType<typeof config>) => misroutedTags(c, `case ${++key}`, self);
  const woven = { astTransformers: { before: ['lockweave/ts-jest'] } };
  t.is(
    check(
      config([
        ['\\.test\\.ts$', self, {}],
        ['\\.ts$', tsJest, woven],
      ]),
    ),
    undefined,
  );
  t.is(
    check(
      config(
        [
          ['\\.test\\.ts$', self, {}],
          ['\\.ts$', babel, {}],
        ],
        ['/src/'],
      ),
    ),
    undefined,
  );
  const error = check(
    config([
      ['\\.test\\.ts$', self, {}],
      ['/src/', babel, {}],
      ['\\.ts$', tsJest, {}],
    ]),
  );
  t.regex(String(error), /src\/payments\.ts \(to babel-jest, pattern \/src\/\)/);
  t.notRegex(String(error), /probe\.ts/); // no tag in it: nothing to lock
});

test('plain ts-jest: a JavaScript test file loads the runtime: only TypeScript test files need a lockweave transformer', async (t) => {
  const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest-plain.config.cjs', 'tests/javascript']);
  t.is(result.status, 0, result.output);
  t.regex(result.output, /✓ a JavaScript test file loads the runtime/);
});

test('getCacheKey changes with the source, the path, the jest config and the tsconfig options; a tsconfig with another entry is refused', (t) => {
  const transformer = (
    require(path.join(ROOT, 'dist', 'transformer', 'routes', 'jest.js')) as {
      default: { getCacheKey(source: string, file: string, options: object): string };
    }
  ).default;
  const file = path.join(PROJECT, 'src', 'payments.ts');
  const source = fs.readFileSync(file, 'utf8');
  const options = { configString: '{"a":1}', transformerConfig: {} };
  const key = transformer.getCacheKey(source, file, options);
  t.is(transformer.getCacheKey(source, file, options), key);
  t.not(transformer.getCacheKey(`${source}\n`, file, options), key);
  t.not(transformer.getCacheKey(source, path.join(PROJECT, 'src', 'other.ts'), options), key);
  t.not(transformer.getCacheKey(source, file, { ...options, configString: '{"a":2}' }), key);
  t.not(transformer.getCacheKey(source, file, { ...options, supportsStaticESM: true }), key);
  // Another tsconfig (other compiler options) must compile again. Not beside the project's
  // tsconfig.json, where every route would read it too.
  fs.mkdirSync(path.join(PROJECT, 'other-config'), { recursive: true });
  const other = path.join(PROJECT, 'other-config', 'tsconfig.json');
  const otherWith = (entry: object) =>
    fs.writeFileSync(
      other,
      JSON.stringify({
        compilerOptions: { target: 'ES2020', plugins: [{ transform: 'lockweave/transformer', ...entry }] },
      }),
    );
  otherWith({});
  t.not(transformer.getCacheKey(source, file, { ...options, transformerConfig: { tsconfig: other } }), key);
  // One whose entry says another prefix than the file's own project (which tspc builds it with) is refused.
  otherWith({ prefix: 'SHOP_' });
  t.throws(() => transformer.getCacheKey(source, file, { ...options, transformerConfig: { tsconfig: other } }), {
    message: /whose lockweave plugin entry says \{"prefix":"SHOP_"\}, but the file's own project .* says \{\}/,
  });
});
