// ts-node runs tagged TypeScript directly through ts-patch's compiler ("ts-node": { "compiler":
// "ts-patch/compiler" }): the method is woven and locks, and under type-checking ts-node a bad
// tag stops the run with its @redisLock diagnostic instead of running the method unlocked.
import test from 'ava';
import * as path from 'node:path';
import { FIXTURES, ROOT, linkPackage, run } from '../../helpers/fixture-projects';

const TS_NODE = path.join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
const PROJECT = path.join(FIXTURES, 'ts-node');

function tsNode(file: string, transpileOnly = false) {
  // TS_NODE_* from the caller's environment could switch type-checking off.
  const env = { TS_NODE_TRANSPILE_ONLY: String(transpileOnly), TS_NODE_PROJECT: path.join(PROJECT, 'tsconfig.json') };
  return run(TS_NODE, ['--project', path.join(PROJECT, 'tsconfig.json'), path.join(PROJECT, 'src', file)], env);
}

test.before(() => linkPackage());

test('ts-node: a tagged method is woven and holds its lock while the body runs', (t) => {
  const result = tsNode('settle.ts');
  t.is(result.status, 0, result.output);
  const printed = JSON.parse(result.stdout.trim().split('\n').pop()!) as { during?: string; after: string | null };
  // `during` is the store's holder of LOCK_settle_B7 read inside the body: a lease token.
  t.regex(printed.during ?? '', /^[0-9a-f-]{36}$/, result.output);
  t.is(printed.after, null);
});

test('ts-node (type-checking): a bad tag fails with its @redisLock diagnostic and nothing runs', (t) => {
  const result = tsNode('bad-tag.ts');
  t.not(result.status, 0);
  t.regex(result.output, /bad-tag\.ts\(3,\d+\): error TS93015: @redisLock: keyName orderId is not a parameter/);
  t.notRegex(result.stdout, /ran unlocked/);
});

test('ts-node --transpile-only: a key typed by an imported interface locks the right key', (t) => {
  // In that mode the import is unresolved and its type is `any`; the key is read as written.
  const result = tsNode('imported-key.ts', true);
  t.is(result.status, 0, result.output);
  const printed = JSON.parse(result.stdout.trim().split('\n').pop()!) as { during?: string; after: string | null };
  t.regex(printed.during ?? '', /^[0-9a-f-]{36}$/, result.output);
  t.is(printed.after, null);
});
