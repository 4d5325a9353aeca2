// The woven JavaScript, compiled by the real tspc: compared with reviewed snapshots
// (UPDATE_SNAPSHOTS=1 rewrites them), then run against the in-process store.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, TMP, linkPackage } from '../../helpers/fixture-projects';
import { tspcAsync } from '../../helpers/tspc';

const PROJECTS = ['cjs', 'esm'];
const compiled = new Map<string, { status: number | null; output: string }>();

async function compile(name: string): Promise<void> {
  compiled.set(name, await tspcAsync(['-p', path.join(FIXTURES, name)]));
}

test.before(async () => {
  linkPackage();
  for (const name of PROJECTS) fs.rmSync(path.join(TMP, name), { recursive: true, force: true });
  await Promise.all(PROJECTS.map(compile));
  // ESM output runs as ES modules only under a "type": "module" package.json, as in the fixture.
  fs.writeFileSync(path.join(TMP, 'esm', 'package.json'), '{ "type": "module" }\n');
});

for (const name of PROJECTS) {
  test(`${name}: tspc compiles the fixture and the woven output matches its snapshots`, (t) => {
    const result = compiled.get(name)!;
    t.is(result.status, 0, result.output);
    const expectedDir = path.join(FIXTURES, name, 'expected');
    const files = fs
      .readdirSync(path.join(TMP, name))
      .filter((f) => f.endsWith('.js'))
      .sort();
    if (process.env.UPDATE_SNAPSHOTS === '1') {
      fs.rmSync(expectedDir, { recursive: true, force: true });
      fs.mkdirSync(expectedDir, { recursive: true });
      for (const file of files) fs.copyFileSync(path.join(TMP, name, file), path.join(expectedDir, file));
    }
    t.deepEqual(fs.readdirSync(expectedDir).sort(), files);
    for (const file of files) {
      t.is(
        fs.readFileSync(path.join(TMP, name, file), 'utf8'),
        fs.readFileSync(path.join(expectedDir, file), 'utf8'),
        `${name}/${file} differs from its snapshot (UPDATE_SNAPSHOTS=1 to accept)`,
      );
    }
  });
}

test('esm: the runtime import is an ES import and the woven code runs', async (t) => {
  const text = fs.readFileSync(path.join(TMP, 'esm', 'inventory.js'), 'utf8');
  t.regex(text, /^import \* as lockweave_1 from "lockweave\/runtime";$/m);
  const runtime = await import(
    pathToUrl(path.join(TMP, '..', 'node_modules', 'lockweave', 'dist', 'runtime', 'index.mjs'))
  );
  runtime.configure({ store: new runtime.MemoryLockStore() });
  const inventory = await import(pathToUrl(path.join(TMP, 'esm', 'inventory.js')));
  t.is(await new inventory.Inventory().reserve('sku-1'), 1);
  t.is(await inventory.restock('sku-1'), 'restocked sku-1');
});

test('cjs: the runtime import is a plain require, with no interop helper added to the file', (t) => {
  const text = fs.readFileSync(path.join(TMP, 'cjs', 'order-service.js'), 'utf8');
  t.regex(text, /const lockweave_1 = require\("lockweave\/runtime"\);/);
  t.notRegex(text, /__importStar/);
});

function pathToUrl(file: string): string {
  return require('node:url').pathToFileURL(file).href;
}
