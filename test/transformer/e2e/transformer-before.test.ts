// A transformer listed before lockweave's in compilerOptions.plugins hands it a tree it rewrote. One
// that rewrites methods with factory.update* keeps the way back to the parsed nodes: lockweave
// finds the tagged method and locks it, the other transformer's change inside. One that makes
// methods anew leaves no way back: the build fails at the method, and the emitted module throws
// when loaded, so the method cannot run unlocked even where the exit code is ignored.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TMP, fixture, linkPackage, reported } from '../../helpers/fixture-projects';
import { tspcAsync, type Compiled } from '../../helpers/tspc';

const WAYS = ['update', 'rebuild'] as const;
const compiled = new Map<string, Compiled>();

test.before(async () => {
  linkPackage();
  await Promise.all(
    WAYS.map(async (way) => {
      fs.rmSync(path.join(TMP, `transformer-before-${way}`), { recursive: true, force: true });
      compiled.set(way, await tspcAsync(['-p', fixture('transformer-before', `tsconfig.${way}.json`)]));
    }),
  );
});

test('a transformer before lockweave that updates the method: it is woven, the other change inside its lock', async (t) => {
  const result = compiled.get('update')!;
  t.is(result.status, 0, result.output);
  const file = path.join(TMP, 'transformer-before-update', 'orders.js');
  const text = fs.readFileSync(file, 'utf8');
  const acquire = text.indexOf('pay_lock_1.acquire(orderNo)');
  const entry = text.indexOf('log.push("enter pay")');
  t.true(acquire > 0 && entry > acquire, text);
  t.regex(text, /finally \{\s+await lease_1\.release\(\);/);
  const runtime = require(path.join(TMP, '..', 'node_modules', 'lockweave', 'dist', 'runtime', 'index.js'));
  runtime.configure({ store: new runtime.MemoryLockStore() });
  const orders = require(file);
  t.is(await new orders.Orders().pay('A1'), 'paid A1');
  t.deepEqual(orders.logged(), ['enter pay']);
});

test('a transformer before lockweave that makes the method anew: TS93030 at the method, and the module throws when loaded', (t) => {
  const result = compiled.get('rebuild')!;
  t.is(result.status, 2, result.output);
  const errors = reported(result.output).filter((r) => r.code >= 93000);
  t.deepEqual(
    errors.map(({ file, line, column, code }) => ({ file, line, column, code })),
    [{ file: 'orders.ts', line: 7, column: 9, code: 93030 }],
    result.output,
  );
  t.true(errors[0].message.includes('list { "transform": "lockweave/transformer" } first'), errors[0].message);
  const file = path.join(TMP, 'transformer-before-rebuild', 'orders.js');
  t.throws(() => require(file), { message: /^lockweave: orders\.ts:7:9: a transformer that ran before lockweave's/ });
});
