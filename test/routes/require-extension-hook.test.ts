// A require hook of the app's for a name of its own (`require.extensions['.svc']`) compiles tagged
// TypeScript past every load hook, straight into the module's _compile: no route weaves such a name,
// so the compile is refused before the file's code runs — at start and after it, with
// lockweave/register and without (the runtime alone, Node 20's too). A load hook registered after
// lockweave/register that compiles such a name as an ES module is refused as it loads the file,
// whether it calls lockweave's hook for the text or reads the file itself. A name Node has no
// handler for (`notes.md`, `pay.JS`), which require runs as JavaScript, is refused the same way. So
// is a file a hook compiles with a _compile it kept from before lockweave loaded: as its load starts.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES, scratchRunner } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'require-extension-hook');
const scratch = routeScratch('routes', 'require-extension-hook');
const run = scratchRunner(scratch, 3);
const REFUSED =
  /lockweave: Node ran \S*pay\.svc, which holds @redisLock tags, as code under a name lockweave's routes do not weave/;

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

const OWN_MAJOR = Number(process.versions.node.split('.')[0]);
const NODES = { [`Node ${OWN_MAJOR} (this process's)`]: process.execPath, 'Node 24': NODE_LINES['Node 24'] };
/**
 * Each Node with each way lockweave is there: the runtime alone, and lockweave/register, which needs
 * module.registerHooks (Node >= 22.15) — the runtime alone on an older one.
 */
const NODE_WAYS = Object.entries(NODES).flatMap(([nodeName, node]) =>
  (
    [
      ['the runtime alone', []],
      ['lockweave/register', ['--require', 'lockweave/register']],
    ] as const
  )
    .filter(([, preload]) => preload.length === 0 || node !== process.execPath || OWN_MAJOR >= 23)
    .map(([way, preload]) => ({ nodeName, node, way, preload })),
);

for (const { nodeName, node, way, preload } of NODE_WAYS) {
  for (const lazy of [false, true]) {
    test(`${nodeName}, ${way}: a tagged .svc a require hook compiles ${lazy ? 'after start-up' : 'at start'} is refused before it runs`, async (t) => {
      const result = await run(node, [...preload, 'main.cjs'], { env: lazy ? { LAZY: '1' } : {} });
      t.not(result.status, 0, result.output);
      t.regex(result.output, REFUSED);
      t.notRegex(result.stdout, /RESULT/);
    });
  }
}

// A hook preloaded before lockweave that compiles with the _compile it kept then: lockweave's
// wrapper of _compile never sees the file, and the file's own top level calls its tagged method.
for (const { nodeName, node, way, preload } of NODE_WAYS) {
  for (const runtime of preload.length > 0 ? [true, false] : [true])
    test(`${nodeName}, ${way}${runtime ? '' : ', the runtime never loaded'}: a tagged .svc a hook compiles with a _compile kept from before lockweave is refused before its top level runs`, async (t) => {
      const result = await run(node, ['--require', './kept-hook.cjs', ...preload, 'main-kept.cjs'], {
        env: runtime ? {} : { NO_RUNTIME: '1' },
      });
      t.not(result.status, 0, result.output);
      t.regex(
        result.output,
        /lockweave: Node ran \S*top-level\.svc, which holds @redisLock tags, as code under a name lockweave's routes do not weave/,
      );
      t.notRegex(result.stdout, /TOP LEVEL RAN|RESULT/);
    });
}

for (const nodeName of ['Node 22', 'Node 24'] as const) {
  for (const readsItself of [false, true]) {
    test(`${nodeName}, lockweave/register: a tagged .svc a later load hook compiles as an ES module ${readsItself ? 'from its own read' : "from lockweave's hook"} is refused before it runs`, async (t) => {
      const result = await run(
        NODE_LINES[nodeName],
        ['--import', 'lockweave/register', '--import', './svc-hook.mjs', 'main.mjs'],
        { env: readsItself ? { READS_ITSELF: '1' } : {} },
      );
      t.not(result.status, 0, result.output);
      t.regex(result.output, REFUSED);
      t.notRegex(result.stdout, /RESULT/);
    });
  }
}

test("Node 24, lockweave/register: a package's tagged .svc a later load hook compiles as an ES module is refused before it runs", async (t) => {
  const pkg = path.join(scratch.dir, 'node_modules', 'pkg');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'pkg', version: '1.0.0' }));
  fs.copyFileSync(path.join(scratch.dir, 'pay.svc'), path.join(pkg, 'ledger.svc'));
  const result = await run(NODE_LINES['Node 24'], [
    '--import',
    'lockweave/register',
    '--import',
    './svc-hook.mjs',
    'main-package.mjs',
  ]);
  t.not(result.status, 0, result.output);
  t.regex(result.output, /lockweave: Node ran \S*node_modules[\\/]pkg[\\/]ledger\.svc, which holds @redisLock tags/);
  t.notRegex(result.stdout, /RESULT/);
});

test('Node 24, lockweave/register: TypeScript under a data name (.sql) that a later load hook compiles is refused before it runs; a document a hook hands over as text is not', async (t) => {
  const result = await run(
    NODE_LINES['Node 24'],
    ['--import', 'lockweave/register', '--import', './svc-hook.mjs', 'main-data.mjs'],
    { env: { HOOK_EXT: '.sql' } },
  );
  t.not(result.status, 0, result.output);
  t.regex(result.output, /lockweave: Node ran \S*ledger\.sql, which holds @redisLock tags/);
  t.notRegex(result.stdout, /RESULT/);
  const doc = await run(NODE_LINES['Node 24'], [
    '--import',
    'lockweave/register',
    '--import',
    './raw-hook.mjs',
    'main-doc.mjs',
  ]);
  t.is(doc.status, 0, doc.output);
  t.regex(doc.stdout, /RESULT # Paying/);
});

// Code under a declaration file's name: no route weaves one (tsc builds nothing of it), yet Node and
// esbuild run what it holds.
for (const [way, preload] of [
  ['the runtime alone', ['--require', 'lockweave/runtime']],
  ['lockweave/register', ['--import', 'lockweave/register']],
] as const)
  for (const declaration of ['cts', 'mts'])
    test(`Node 24, ${way}: a tagged pay.d.${declaration}, which Node runs as code, is refused before it runs`, async (t) => {
      const result = await run(NODE_LINES['Node 24'], [...preload, 'main-declaration.cjs'], {
        env: { DECLARATION: declaration },
      });
      t.not(result.status, 0, result.output);
      t.regex(result.output, new RegExp(`lockweave: Node ran \\S*pay\\.d\\.${declaration}`));
      t.notRegex(result.stdout, /RESULT/);
    });

test("esbuild with lockweave's plugin: a tagged pay.d.mts an entry imports as code fails the build", async (t) => {
  const result = await run(NODE_LINES['Node 24'], ['build-declaration.mjs']);
  t.not(result.status, 0, result.output);
  t.regex(result.output, /lockweave: The build ran \S*pay\.d\.mts, which holds @redisLock tags/);
  t.notRegex(result.stdout, /BUILT/);
});

for (const file of ['notes.md', 'upper.JS'])
  for (const [way, preload] of [
    ['the runtime alone', []],
    ['lockweave/register', ['--require', 'lockweave/register']],
  ] as const)
    test(`Node 24, ${way}: a tagged ${file} that require runs as JavaScript is refused before it runs`, async (t) => {
      const result = await run(NODE_LINES['Node 24'], [...preload, 'main-named.cjs'], { env: { FILE: file } });
      t.not(result.status, 0, result.output);
      t.regex(
        result.output,
        new RegExp(`lockweave: Node ran \\S*${file.replace('.', '\\.')}, which holds @redisLock tags`),
      );
      t.notRegex(result.stdout, /RESULT/);
    });
