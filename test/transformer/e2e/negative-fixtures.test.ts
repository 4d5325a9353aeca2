// Every compile error of CONTRACT section 3 and every ignored-tag trap fails the build, with
// `@redisLock:` first, its own code, and the file:line:col of the tag (or the attribute).
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TMP, TS6, expectations, fixture, linkPackage, reported, type Reported } from '../../helpers/fixture-projects';
import { tspc } from '../../helpers/tspc';

test.before(linkPackage);

const expected = expectations(fixture('errors', 'src'));

function assertAllReported(t: import('ava').ExecutionContext, output: string) {
  const ours = reported(output).filter((r) => r.code >= 93000 && r.code < 93100);
  for (const e of expected) {
    const hits = ours.filter(
      (r) => r.file === e.file && r.line === e.line && r.column === e.column && r.code === e.code,
    );
    t.is(hits.length, 1, `${e.file}:${e.line}:${e.column} TS${e.code} reported ${hits.length} times\n${output}`);
  }
  t.true(ours.every((r: Reported) => r.message.startsWith('@redisLock: ')));
  t.is(ours.length, expected.length, output);
}

test('the fixture covers every error code but config errors (checked on their own)', (t) => {
  const codes = new Set(expected.map((e) => e.code));
  for (let code = 93001; code <= 93024; code++) {
    // 93009 (JSDoc not read) has no fixture a compiler can produce: see jsdoc-view.test.ts.
    if (code === 93009 || code === 93022) continue;
    t.true(codes.has(code), `no negative case for TS${code}`);
  }
});

test('tspc -p fails with one @redisLock diagnostic per bad tag, at the tag', (t) => {
  const result = tspc(['-p', fixture('errors')]);
  t.is(result.status, 2, result.output);
  assertAllReported(t, result.output);
  // tsc still writes output on errors; each method whose tag failed must throw, never run unlocked.
  const keyErrors = expected.filter((e) => e.file.endsWith('keys.ts')).length;
  const emitted = fs.readFileSync(path.join(TMP, 'errors', 'keys.js'), 'utf8');
  t.is(emitted.split('throw new Error("@redisLock:').length - 1, keyErrors);
});

test('tspc --noEmit with the transformProgram entry reports them once each', (t) => {
  const result = tspc(['-p', fixture('errors', 'tsconfig.program.json'), '--noEmit']);
  t.not(result.status, 0, result.output);
  assertAllReported(t, result.output);
});

test('tspc -p with both entries and emit still reports each error once', (t) => {
  const result = tspc(['-p', fixture('errors', 'tsconfig.program.json')]);
  t.not(result.status, 0, result.output);
  assertAllReported(t, result.output);
});

test('tspc -b with the transformProgram entry fails', (t) => {
  const result = tspc(['-b', fixture('errors', 'tsconfig.program.json'), '--force']);
  t.not(result.status, 0, result.output);
  assertAllReported(t, result.output);
});

test('TypeScript 6 through ts-patch (TSP_COMPILER_TS_PATH) reports the same errors', (t) => {
  const result = tspc(['-p', fixture('errors')], { env: { TSP_COMPILER_TS_PATH: TS6 } });
  t.is(result.status, 2, result.output);
  assertAllReported(t, result.output);
});

test('a plugin whose package.json asks for no JSDoc parsing still weaves (93009 is no longer that state)', (t) => {
  // tsc parses no JSDoc in .ts files; lockweave reads the tagged files' JSDoc itself (jsdoc-view.ts).
  const result = tspc(['-p', fixture('jsdoc-off')]);
  t.is(result.status, 0, result.output);
  const emitted = fs.readFileSync(path.join(TMP, 'jsdoc-off', 'service.js'), 'utf8');
  t.is(emitted.split('defineLock(').length - 1, 2, emitted);
  t.regex(emitted, /site: "Service\.pay"/);
  t.regex(emitted, /site: "Service\.refund"/);
});

test('the program-mode entry alone fails the build instead of emitting the method unlocked', (t) => {
  const result = tspc(['-p', fixture('program-entry-only')]);
  t.not(result.status, 0, result.output);
  t.regex(
    result.output,
    /error TS93022: @redisLock: the "transformProgram": true entry only reports errors; without the entry \{ "transform": "lockweave\/transformer" \}/,
  );
});

test('bad plugin options fail the build', (t) => {
  const result = tspc(['-p', fixture('bad-config')]);
  t.is(result.status, 2, result.output);
  const lines = result.output.split('\n').filter((l) => l.includes('TS93022'));
  t.is(lines.length, 3, result.output);
  t.true(
    lines.every((l) => l.includes('@redisLock: plugin option')),
    result.output,
  );
  t.regex(result.output, /defaults\.lockTime: "abc"/);
  t.regex(result.output, /defaults\.bussinessFlag|defaults\.retriez/);
  void path;
});
