// `lockweave check` and `lockweave show`, and why check flags TypeScript 7's tsc: it ignores the
// plugin and emits methods without their locks, exiting 0.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, TMP, TS7_TSC, fixture, linkPackage, run } from '../../helpers/fixture-projects';

test.before(linkPackage);

test('check passes a valid project', (t) => {
  const result = run(CLI, ['check', '-p', fixture('cjs', 'tsconfig.json')]);
  t.is(result.status, 0, result.output);
});

test('check fails with file:line:col diagnostics on bad tags', (t) => {
  const result = run(CLI, ['check', '-p', fixture('errors', 'tsconfig.json')]);
  t.is(result.status, 1, result.output);
  t.regex(
    result.stderr,
    /errors\/src\/attributes\.ts:4:18 - error TS93010: @redisLock: unknown attribute bussinessFlag; did you mean businessFlag\?/,
  );
});

test('check on TypeScript 7 checks the tags with a TypeScript that has an API and flags tsc as a hole: use lockweave build', (t) => {
  // TypeScript 6 through ts-patch (TSP_COMPILER_TS_PATH) crashes when the project's typescript is 7,
  // so the way out is `lockweave build`, which needs no ts-patch. The tags are checked with the
  // 5.x/6.x found from lockweave's place (in a TS 7 project, `typescript6` beside 7; here the repo's own).
  const result = run(CLI, [
    'check',
    '-p',
    fixture('cjs', 'tsconfig.json'),
    '--typescript',
    path.dirname(path.dirname(TS7_TSC)),
  ]);
  t.is(result.status, 1, result.output);
  t.regex(result.stdout, /19 tagged methods .*lockweave's TypeScript [56]\.\d+\.\d+ \(the project's is 7\./);
  t.regex(result.stderr, /TypeScript 7\.0\.\d+'s tsc is the native compiler: it ignores compilerOptions\.plugins/);
  t.regex(result.stderr, /lockweave build/);
});

test('why: plain TypeScript 7 tsc ignores the plugin and emits an unlocked method with exit 0', (t) => {
  const outDir = path.join(TMP, 'ts7-unguarded');
  fs.rmSync(outDir, { recursive: true, force: true });
  const result = run(TS7_TSC, ['-p', fixture('esm', 'tsconfig.json'), '--outDir', outDir]);
  t.is(result.status, 0, result.output);
  const text = fs.readFileSync(path.join(outDir, 'inventory.js'), 'utf8');
  t.regex(text, /async reserve\(sku\)/);
  t.notRegex(text, /lockweave|acquire/);
});

test('check fails on a tsconfig without the lockweave plugin entry', (t) => {
  const result = run(CLI, ['check', '-p', fixture('no-plugin', 'tsconfig.json')]);
  t.is(result.status, 1, result.output);
  t.regex(result.stderr, /no lockweave plugin entry/);
});

test('show prints the woven JavaScript of one file', (t) => {
  const result = run(CLI, ['show', fixture('esm', 'src', 'inventory.ts'), '-p', fixture('esm', 'tsconfig.json')]);
  t.is(result.status, 0, result.output);
  t.regex(
    result.stdout,
    /const lease_1 = await reserve_lock_1\.acquire\(sku, errors_1\.Busy\);\s*try \{\s*return await lease_1\.run\(async \(\) => \{/,
  );
});
