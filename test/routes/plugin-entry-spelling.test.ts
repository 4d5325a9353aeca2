// tspc weaves with the entry it loaded lockweave's transformer from; every other route reads the
// entry that names the transformer "lockweave/transformer" (or a path into the package). An entry
// spelled another way — a module that re-exports the transformer, a copy elsewhere — would have
// tspc lock `shop:` keys and the routes `LOCK_` ones: tspc fails the build instead, and
// `lockweave check` says what it found.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT, linkPackage } from '../helpers/fixture-projects';
import { tspcAsync } from '../helpers/tspc';

const TMP = path.join(ROOT, 'test', '.tmp', 'routes', 'plugin-entry-spelling');
const SERVICE = `export class OrderService {
  /** @${'redisLock'} businessFlag=payOrder keyName=orderNo */
  async pay(orderNo: string): Promise<string> {
    return \`paid \${orderNo}\`;
  }
}
`;
const WRAPPER = "module.exports = require('lockweave/transformer');\n";
const UNREAD =
  /lockweave's transformer was loaded from a plugin entry.* that does not name it "lockweave\/transformer"/;

test.before(() => {
  linkPackage(); // `lockweave/transformer` resolves from test/.tmp
  fs.rmSync(TMP, { recursive: true, force: true });
});

/** A project under TMP: its tsconfig's plugins, service.ts, and the wrapper module in tools/. */
function project(name: string, plugins: (dir: string) => object[]): string {
  const dir = path.join(TMP, name);
  fs.mkdirSync(path.join(dir, 'tools'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'service.ts'), SERVICE);
  fs.writeFileSync(path.join(dir, 'tools', 'lockweave-transformer.cjs'), WRAPPER);
  // A copy of the package elsewhere (vendored): its files, under a directory not named lockweave.
  const vendored = path.join(dir, 'vendor', 'lw');
  fs.mkdirSync(vendored, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(vendored, 'package.json'));
  fs.symlinkSync(path.join(ROOT, 'dist'), path.join(vendored, 'dist'), 'dir');
  // No @types and skipLibCheck, as the other fixture projects: what tspc does with the entry is the
  // test, not the ~75,000 lines of the repo's @types and lib files, whose type-check was most of
  // each compile (about 8 of 10 s). service.ts uses no type from them.
  const compilerOptions = {
    target: 'ES2022',
    module: 'commonjs',
    strict: true,
    types: [],
    skipLibCheck: true,
    outDir: 'dist',
    plugins: plugins(dir),
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['service.ts'] }));
  return dir;
}

const compile = (dir: string, ...args: string[]) => tspcAsync(['-p', dir, ...args]);

test('a wrapper module that re-exports the transformer, named by the entry that sets the prefix: tspc fails, naming the fix', async (t) => {
  const dir = project('wrapper', () => [{ transform: './tools/lockweave-transformer.cjs', prefix: 'shop:' }]);
  const built = await compile(dir);
  t.not(built.status, 0, built.output);
  t.regex(built.output, UNREAD);
  t.regex(built.output, /Name it "lockweave\/transformer"/);
});

test('a wrapper module with no settings of its own weaves with the defaults, which the routes read too', async (t) => {
  const dir = project('wrapper-no-settings', () => [{ transform: './tools/lockweave-transformer.cjs' }]);
  const built = await compile(dir);
  t.is(built.status, 0, built.output);
  t.regex(
    fs.readFileSync(path.join(dir, 'dist', 'service.js'), 'utf8'),
    /pay_lock_1 = lockweave_1\.defineLock\(\{ site: "OrderService\.pay", businessFlag: "payOrder" \}\)/,
  );
});

test('an absolute path to a copy of the package elsewhere: tspc fails', async (t) => {
  const dir = project('vendored', (at) => [
    { transform: path.join(at, 'vendor', 'lw', 'dist', 'transformer', 'index.js'), prefix: 'shop:' },
  ]);
  const built = await compile(dir);
  t.not(built.status, 0, built.output);
  t.regex(built.output, UNREAD);
});

test('a wrapper beside an entry the routes read, with other settings: tspc fails; with the same settings it weaves', async (t) => {
  const differ = project('wrapper-and-entry', () => [
    { transform: './tools/lockweave-transformer.cjs', prefix: 'shop:' },
    { transform: 'lockweave/transformer' },
  ]);
  const built = await compile(differ);
  t.not(built.status, 0, built.output);
  t.regex(
    built.output,
    /whose prefix and defaults \(\{"prefix":"shop:"\}\) are not those of the entry lockweave's other routes read/,
  );
  const same = project('wrapper-and-same-entry', () => [
    { transform: './tools/lockweave-transformer.cjs', prefix: 'shop:', defaults: { retries: 5, lockTime: '20s' } },
    { transform: 'lockweave/transformer', defaults: { lockTime: '20s', retries: 5 }, prefix: 'shop:' },
  ]);
  const woven = await compile(same);
  t.is(woven.status, 0, woven.output);
  t.regex(fs.readFileSync(path.join(same, 'dist', 'service.js'), 'utf8'), /prefix: "shop:"/);
});

test('the program entry ("transformProgram": true) spelled as a wrapper: tspc --noEmit fails, naming it', async (t) => {
  const dir = project('program-wrapper', () => [
    { transform: './tools/lockweave-transformer.cjs', prefix: 'shop:', transformProgram: true },
  ]);
  const built = await compile(dir, '--noEmit');
  t.not(built.status, 0, built.output);
  t.regex(
    built.output,
    /plugin entry "\.\/tools\/lockweave-transformer\.cjs" that does not name it "lockweave\/transformer"/,
  );
});

test('the spellings every route reads weave with the entry\'s prefix: "lockweave/transformer" and a path into the installed package', async (t) => {
  for (const [name, transform] of [
    ['named', 'lockweave/transformer'],
    ['installed-path', '../../../node_modules/lockweave/dist/transformer/index.js'],
  ]) {
    const dir = project(name, () => [{ transform, prefix: 'shop:' }]);
    const built = await compile(dir);
    t.is(built.status, 0, `${name}: ${built.output}`);
    t.regex(fs.readFileSync(path.join(dir, 'dist', 'service.js'), 'utf8'), /prefix: "shop:"/, name);
  }
});

test("lockweave check names the entry it did not read as lockweave's, instead of saying the tsconfig has none", (t) => {
  const dir = project('check-wrapper', () => [{ transform: './tools/lockweave-transformer.cjs', prefix: 'shop:' }]);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'check-wrapper', private: true }));
  const checked = spawnSync(process.execPath, [CLI, 'check'], { cwd: dir, encoding: 'utf8' });
  t.is(checked.status, 1, checked.stdout + checked.stderr);
  t.regex(checked.stdout + checked.stderr, /its plugin entries name "\.\/tools\/lockweave-transformer\.cjs"/);
  t.notRegex(checked.stdout + checked.stderr, /tspc weaves nothing/);
});

test('an entry that makes ts-patch call the transformer as another kind ("type") or on declarations fails tspc, naming the fix', async (t) => {
  for (const [name, extra, said] of [
    ['type-raw', { type: 'raw' }, /remove "type" from its plugin entry/],
    ['type-checker', { type: 'checker' }, /remove "type" from its plugin entry/],
    ['type-config', { type: 'config' }, /remove "type" from its plugin entry/],
    ['after-declarations', { afterDeclarations: true }, /remove "afterDeclarations" from its plugin entry/],
  ] as const) {
    const dir = project(name, () => [{ transform: 'lockweave/transformer', ...extra }]);
    const built = await compile(dir, ...(name === 'after-declarations' ? ['--declaration'] : []));
    t.not(built.status, 0, `${name}: ${built.output}`);
    t.regex(built.output, said, name);
  }
});
