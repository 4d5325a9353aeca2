// jest 30, run as users run it: the lockweave/jest transformer (CommonJS and native ES modules),
// and ts-jest with ts-patch's compiler. A tagged method's body finds its key in Redis and is alone
// (3 calls at once); a bad tag stops the test file with file:line:col. Plain ts-jest does not weave:
// its run is shown to be unlocked here, a hole that `lockweave check` has to report.
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

function jest(binary: string, args: string[], nodeFlags: string[] = []): Promise<Ran> {
  // --no-cache: every run compiles, so a result never comes from an earlier run's output.
  return runChild(binary, [...nodeFlags, JEST, '--rootDir', PROJECT, '--ci', '--no-cache', '--colors=false', ...args], {
    cwd: PROJECT,
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

test('ts-jest with compiler ts-patch/compiler: the method holds its key', async (t) => {
  const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest.config.cjs', 'tests/locks']);
  t.is(result.status, 0, result.output);
  t.regex(result.output, /✓ a tagged method holds its key in Redis, one body at a time/);
  t.regex(result.output, /✓ keyless, several keys and a signal: each holds its keys, one body at a time/);
});

test('ts-jest with compiler ts-patch/compiler: a bad tag stops the test file with file:line:col', async (t) => {
  // Reported by the program-mode plugin entry; ts-jest prints `file:line:col - error`.
  const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest.config.cjs', 'tests/bad-tag']);
  t.not(result.status, 0);
  t.regex(result.output, BAD_TAG);
  t.notRegex(result.output, /started without the lock/);
});

test('plain ts-jest (no ts-patch compiler) does not weave: only a body that checks Redis notices', async (t) => {
  // The hole this route leaves: an ordinary test of return values would pass here. The fixture's
  // body checks its key, so the run fails; users need `lockweave check` to flag such a config.
  const result = await jest(NODES['Node 24'], ['-c', 'jest.ts-jest-plain.config.cjs', 'tests/locks']);
  t.not(result.status, 0);
  t.regex(result.output, /LOCK_payOrder_run\d+-Test001 is not in Redis while the body runs/);
});

test('getCacheKey changes with the source, the path, the jest config and the tsconfig options', (t) => {
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
  // Another tsconfig (another prefix) must compile again: the woven key differs.
  const other = path.join(PROJECT, 'tsconfig.prefix.json');
  fs.writeFileSync(
    other,
    JSON.stringify({ compilerOptions: { plugins: [{ transform: 'lockweave/transformer', prefix: 'SHOP_' }] } }),
  );
  t.not(transformer.getCacheKey(source, file, { ...options, transformerConfig: { tsconfig: other } }), key);
});
