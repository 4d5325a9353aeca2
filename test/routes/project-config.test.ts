// Which plugin entry the routes read (Node's loader, jest, the bundler plugins), against the one
// tspc builds with: a solution-style tsconfig.json whose entry is in a referenced project, an entry
// that names the transformer by path, a tsconfig.build.json beside the nearest one that sets other
// options, and a base config of a package found elsewhere once a nearer one is installed. Each would
// have the route lock other keys than tspc's, with no error. And where the nearest project has no
// entry, the enclosing tsconfig.json that gives one: only inside the project (up to its .git), and
// only one that includes the file, as `tspc -p` there would build it.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { TSPC } from '../helpers/tspc';

type ProjectConfigModule = typeof import('../../transformer/routes/project-config');
const DIST = path.join(ROOT, 'dist', 'transformer', 'routes');
const { projectConfigFor, projectConfigsOf } = require(path.join(DIST, 'project-config.js')) as ProjectConfigModule;
const TMP = path.join(ROOT, 'test', '.tmp', 'routes', 'project-config');

/** A directory of files (path → JSON or text) under TMP, made afresh. */
function project(name: string, files: Record<string, unknown>): string {
  const dir = path.join(TMP, name);
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

const entry = (options: Record<string, unknown>, transform = 'lockweave/transformer') => ({
  compilerOptions: { plugins: [{ transform, ...options }] },
});
const SOURCE = 'export class Pay {}\n';

test('a solution-style tsconfig.json: the entry of the project it references', (t) => {
  const dir = project('solution', {
    'tsconfig.json': { files: [], references: [{ path: './tsconfig.app.json' }, { path: './tsconfig.node.json' }] },
    'tsconfig.app.json': { ...entry({ prefix: 'shop:', defaults: { lockTime: '60s' } }), include: ['src'] },
    'tsconfig.node.json': { include: ['vite.config.ts'] },
    'src/pay.ts': SOURCE,
  });
  const config = projectConfigFor(path.join(dir, 'src', 'pay.ts'));
  t.deepEqual(config.plugin, { prefix: 'shop:', defaults: { lockTime: '60s' } });
  t.true(config.configFiles.includes(path.join(dir, 'tsconfig.app.json')));
});

test('in a long-running process, an edited config, a nearer tsconfig.json and a new one beside are read again', (t) => {
  const dir = project('long-running', {
    'tsconfig.json': entry({ prefix: 'shop:' }),
    'src/pay.ts': SOURCE,
  });
  const file = path.join(dir, 'src', 'pay.ts');
  const write = (name: string, content: unknown) => fs.writeFileSync(path.join(dir, name), JSON.stringify(content));
  t.is(projectConfigFor(file).plugin.prefix, 'shop:');
  t.is(projectConfigFor(file).plugin.prefix, 'shop:', 'remembered');
  // Same length, so neither size nor a coarse clock tells the edit: the text does.
  write('tsconfig.json', entry({ prefix: 'shoq:' }));
  t.is(projectConfigFor(file).plugin.prefix, 'shoq:', 'an edit of the config');
  write('base.json', entry({ prefix: 'base:' }));
  write('tsconfig.json', { extends: './base.json' });
  t.is(projectConfigFor(file).plugin.prefix, 'base:', 'a config it extends');
  write('base.json', entry({ prefix: 'based:' }));
  t.is(projectConfigFor(file).plugin.prefix, 'based:', 'an edit of the config it extends');
  write('tsconfig.build.json', entry({ prefix: 'prod:' }));
  t.throws(
    () => projectConfigFor(file),
    { message: /tsconfig\.build\.json \(\{"prefix":"prod:"\}\).* differ/ },
    'a config written beside',
  );
  fs.rmSync(path.join(dir, 'tsconfig.build.json'));
  t.is(projectConfigFor(file).plugin.prefix, 'based:', 'and removed again');
  write('src/tsconfig.json', entry({ prefix: 'src:' }));
  t.is(projectConfigFor(file).plugin.prefix, 'src:', 'a nearer tsconfig.json');
});

test("tspc's check reads many files' projects as one batch: each folder's own project, and an edit seen by the next batch", (t) => {
  const dir = project('batch', {
    'tsconfig.json': entry({ prefix: 'shop:' }),
    'src/pay.ts': SOURCE,
    'src/refund.ts': SOURCE,
    'src/legacy/tsconfig.json': entry({ prefix: 'legacy:' }),
    'src/legacy/old.ts': SOURCE,
  });
  const ts = require('typescript') as typeof import('typescript');
  const prefixes = (projectOf: ReturnType<typeof projectConfigsOf>) =>
    ['src/pay.ts', 'src/legacy/old.ts', 'src/refund.ts'].map((file) => projectOf(path.join(dir, file)).plugin.prefix);
  const batch = projectConfigsOf(ts);
  t.deepEqual(prefixes(batch), ['shop:', 'legacy:', 'shop:']);
  // Same length: only the text tells the edit. The batch asked the disk once; the next one asks again.
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(entry({ prefix: 'shoq:' })));
  t.deepEqual(prefixes(projectConfigsOf(ts)), ['shoq:', 'legacy:', 'shoq:']);
  fs.writeFileSync(path.join(dir, 'src', 'tsconfig.json'), JSON.stringify(entry({ prefix: 'src:' })));
  t.deepEqual(prefixes(projectConfigsOf(ts)), ['src:', 'legacy:', 'src:'], 'a nearer tsconfig.json written since');
});

test("a route's tsconfig option naming a config without an entry, or with another, where the file's own project has one: an error naming both", (t) => {
  const dir = project('named-without-entry', {
    'tsconfig.json': entry({ prefix: 'shop:' }),
    'tsconfig.esbuild.json': { compilerOptions: { target: 'ES2022' } },
    // Not beside as a tsconfig.*.json: not one the file's own project is read with.
    'build/app.json': entry({ prefix: 'app:' }),
    'src/pay.ts': SOURCE,
  });
  const file = path.join(dir, 'src', 'pay.ts');
  const error = t.throws(() => projectConfigFor(file, path.join(dir, 'tsconfig.esbuild.json')));
  t.regex(String(error?.message), /tsconfig\.esbuild\.json.* has no lockweave plugin entry.*"prefix":"shop:"/);
  // A config with another entry (`tsx --tsconfig build/app.json`, or TSX_TSCONFIG_PATH left in the
  // environment) would lock other keys than tspc, which builds the file with its own project's: refused too.
  const other = t.throws(() => projectConfigFor(file, path.join(dir, 'build', 'app.json')));
  t.regex(
    String(other?.message),
    /build[\\/]app\.json.* whose lockweave plugin entry says \{"prefix":"app:"\}, but the file's own project .* says \{"prefix":"shop:"\}/,
  );
  // With the same entry it is read, as tspc would build the file.
  fs.writeFileSync(path.join(dir, 'build', 'app.json'), JSON.stringify(entry({ prefix: 'shop:' })));
  t.is(projectConfigFor(file, path.join(dir, 'build', 'app.json')).plugin.prefix, 'shop:');
  // Without an entry anywhere, there is nothing to lock other keys than.
  const plain = project('named-none', {
    'tsconfig.json': { compilerOptions: { strict: true } },
    'tsconfig.esbuild.json': { compilerOptions: { target: 'ES2022' } },
    'src/pay.ts': SOURCE,
  });
  t.is(
    projectConfigFor(path.join(plain, 'src', 'pay.ts'), path.join(plain, 'tsconfig.esbuild.json')).plugin.prefix,
    undefined,
  );
  // Cached so, it is woven again once the file's own project comes to have an entry.
  fs.writeFileSync(path.join(plain, 'src', 'pay.ts'), TAGGED);
  const named = path.join(plain, 'tsconfig.esbuild.json');
  const cache = path.join(plain, 'cache');
  t.regex(wovenByRoutes(path.join(plain, 'src', 'pay.ts'), cache, named), /defineLock\(/);
  fs.writeFileSync(path.join(plain, 'src', 'tsconfig.json'), JSON.stringify(entry({ prefix: 'shop:' })));
  const stale = t.throws(() => wovenByRoutes(path.join(plain, 'src', 'pay.ts'), cache, named));
  t.regex(String(stale?.message), /has no lockweave plugin entry.*"prefix":"shop:"/);
});

test('an entry that names the transformer by path, as ts-patch takes it', (t) => {
  const dir = project('path-entry', {
    'tsconfig.json': entry({ prefix: 'shop:' }, './node_modules/lockweave/dist/transformer/index.js'),
    'pay.ts': SOURCE,
  });
  t.is(projectConfigFor(path.join(dir, 'pay.ts')).plugin.prefix, 'shop:');
});

test('a tsconfig.*.json beside the nearest one: the same options are taken, other ones are an error naming both', (t) => {
  const agree = project('siblings-agree', {
    'tsconfig.json': entry({ prefix: 'shop:' }),
    'tsconfig.build.json': { extends: './tsconfig.json', exclude: ['test'] },
    'pay.ts': SOURCE,
  });
  t.is(projectConfigFor(path.join(agree, 'pay.ts')).plugin.prefix, 'shop:');
  // The same defaults written in another order are the same settings.
  const reordered = project('siblings-reordered', {
    'tsconfig.json': entry({ prefix: 'shop:', defaults: { lockTime: '60s', waitTime: '5s' } }),
    'tsconfig.build.json': entry({ defaults: { waitTime: '5s', lockTime: '60s' }, prefix: 'shop:' }),
    'pay.ts': SOURCE,
  });
  t.is(projectConfigFor(path.join(reordered, 'pay.ts')).plugin.prefix, 'shop:');
  const differ = project('siblings-differ', {
    'tsconfig.json': entry({ prefix: 'dev:' }),
    'tsconfig.build.json': { extends: './tsconfig.json', ...entry({ prefix: 'prod:' }) },
    'pay.ts': SOURCE,
  });
  const error = t.throws(() => projectConfigFor(path.join(differ, 'pay.ts')));
  t.regex(
    error!.message,
    /tsconfig\.json \(\{"prefix":"dev:"\}\).*tsconfig\.build\.json \(\{"prefix":"prod:"\}\).* differ/,
  );
  t.regex(error!.message, /name the tsconfig in the route's options/);
  // Named by the route, the tsconfig is the one read.
  t.is(projectConfigFor(path.join(differ, 'pay.ts'), path.join(differ, 'tsconfig.build.json')).plugin.prefix, 'prod:');
});

test('a woven file cached under a base config of a package: a nearer install of that package weaves it again', (t) => {
  const root = project('extends-shadow', {
    'node_modules/@org/tsconfig/package.json': { name: '@org/tsconfig' },
    'node_modules/@org/tsconfig/base.json': entry({ prefix: 'v1:' }),
    'app/tsconfig.json': { extends: '@org/tsconfig/base.json' },
    'app/pay.ts':
      'export class Pay {\n  /** @redisLock businessFlag=pay keyName=no */\n  async pay(no: string) { return no; }\n}\n',
  });
  const app = path.join(root, 'app');
  const weave = () =>
    execFileSync(
      process.execPath,
      [
        '-e',
        `const { weaveCached } = require(${JSON.stringify(path.join(DIST, 'weave-cached.js'))});
         const file = ${JSON.stringify(path.join(app, 'pay.ts'))};
         process.stdout.write(weaveCached(file, require('node:fs').readFileSync(file, 'utf8'), {}).code);`,
      ],
      { env: { ...process.env, LOCKWEAVE_CACHE_DIR: path.join(root, 'cache') }, encoding: 'utf8' },
    );
  t.regex(weave(), /prefix: "v1:"/);
  t.regex(weave(), /prefix: "v1:"/, 'from the cache');
  // A nearer @org/tsconfig, as TypeScript (and tspc) now reads it.
  fs.mkdirSync(path.join(app, 'node_modules', '@org', 'tsconfig'), { recursive: true });
  fs.writeFileSync(path.join(app, 'node_modules', '@org', 'tsconfig', 'package.json'), '{ "name": "@org/tsconfig" }');
  fs.writeFileSync(
    path.join(app, 'node_modules', '@org', 'tsconfig', 'base.json'),
    JSON.stringify(entry({ prefix: 'v2:' })),
  );
  t.regex(weave(), /prefix: "v2:"/);
});

test("a woven file cached under a config that `extends` another: a package's exports pointing elsewhere, or a file TypeScript probes first appearing, weaves it again", (t) => {
  // The base a package specifier names is the one its package.json's `exports` says.
  const root = project('extends-exports', {
    'node_modules/@org/tsconfig/package.json': { name: '@org/tsconfig', exports: { '.': './a.json' } },
    'node_modules/@org/tsconfig/a.json': entry({ prefix: 'a:' }),
    'node_modules/@org/tsconfig/b.json': entry({ prefix: 'b:' }),
    'app/tsconfig.json': { extends: '@org/tsconfig' },
    'app/pay.ts': TAGGED,
  });
  const file = path.join(root, 'app', 'pay.ts');
  const cache = path.join(root, 'cache');
  t.regex(wovenByRoutes(file, cache), /prefix: "a:"/);
  t.regex(wovenByRoutes(file, cache), /prefix: "a:"/, 'from the cache');
  fs.writeFileSync(
    path.join(root, 'node_modules', '@org', 'tsconfig', 'package.json'),
    JSON.stringify({ name: '@org/tsconfig', exports: { '.': './b.json' } }),
  );
  t.regex(wovenByRoutes(file, cache), /prefix: "b:"/, 'an upgrade that moved the export');

  // `"extends": "./base"` reads ./base where it exists, ./base.json otherwise.
  const probed = project('extends-probed', {
    'base.json': entry({ prefix: 'json:' }),
    'tsconfig.json': { extends: './base' },
    'pay.ts': TAGGED,
  });
  const payFile = path.join(probed, 'pay.ts');
  const probedCache = path.join(probed, 'cache');
  t.regex(wovenByRoutes(payFile, probedCache), /prefix: "json:"/);
  t.regex(wovenByRoutes(payFile, probedCache), /prefix: "json:"/, 'from the cache');
  fs.writeFileSync(path.join(probed, 'base'), JSON.stringify(entry({ prefix: 'bare:' })));
  t.regex(wovenByRoutes(payFile, probedCache), /prefix: "bare:"/, 'the file TypeScript reads first now exists');
});

const TAGGED =
  'export class Pay {\n  /** @redisLock businessFlag=pay keyName=no */\n  async pay(no: string) { return no; }\n}\n';

/**
 * The woven text of `file` by the routes' weave (weave-cached.ts), in a process of its own, with the
 * cache in `cacheDir`; `tsconfig`: the config the route is told to read.
 */
function wovenByRoutes(file: string, cacheDir: string, tsconfig?: string): string {
  return execFileSync(
    process.execPath,
    [
      '-e',
      `const { weaveCached } = require(${JSON.stringify(path.join(DIST, 'weave-cached.js'))});
       const file = ${JSON.stringify(file)};
       const options = ${JSON.stringify(tsconfig ? { tsconfig } : {})};
       process.stdout.write(weaveCached(file, require('node:fs').readFileSync(file, 'utf8'), options).code);`,
    ],
    { env: { ...process.env, LOCKWEAVE_CACHE_DIR: cacheDir }, encoding: 'utf8' },
  );
}

test('a folder whose tsconfig.json has no entry, inside a project whose tsconfig.json has one: the enclosing entry, as `tspc -p .` builds it', (t) => {
  const root = project('enclosing', {
    'tsconfig.json': { ...entry({ prefix: 'shop:' }), include: ['src'] },
    // An editor's config for one folder: no plugin entry.
    'src/legacy/tsconfig.json': { compilerOptions: { strict: true } },
    'src/legacy/pay.ts': TAGGED,
  });
  const file = path.join(root, 'src', 'legacy', 'pay.ts');
  const config = projectConfigFor(file);
  t.is(config.plugin.prefix, 'shop:');
  t.is(config.configFile, path.join(root, 'src', 'legacy', 'tsconfig.json'), "the nearest project's compiler options");
  t.true(config.configFiles.includes(path.join(root, 'tsconfig.json')));
  // The answer depends on the folder between having no tsconfig.json: one written there later weaves again.
  const cache = path.join(root, 'cache');
  t.regex(wovenByRoutes(file, cache), /prefix: "shop:"/);
  t.regex(wovenByRoutes(file, cache), /prefix: "shop:"/, 'from the cache');
  fs.writeFileSync(path.join(root, 'src', 'tsconfig.json'), JSON.stringify(entry({ prefix: 'src:' })));
  const error = t.throws(() => wovenByRoutes(file, cache));
  t.regex(
    String(error?.message),
    /src[\\/]tsconfig\.json \(\{"prefix":"src:"\}\).*tsconfig\.json \(\{"prefix":"shop:"\}\).* differ/,
  );
});

test('names tsc does not list (.vue, a .svc given to a ts loader, .js without allowJs) get the entry their folder gets, as the .ts beside them', (t) => {
  const root = project('enclosing-other-names', {
    'tsconfig.json': { ...entry({ prefix: 'shop:' }), include: ['src'], exclude: ['src/legacy/old'] },
    'src/legacy/tsconfig.json': { compilerOptions: { strict: true } },
    'src/legacy/pay.ts': TAGGED,
    'src/legacy/Pay.vue': '<script setup lang="ts">\n</script>\n',
    'src/legacy/pay.svc': TAGGED,
    'src/legacy/pay.js': SOURCE,
    'src/legacy/old/refund.vue': '<script setup lang="ts">\n</script>\n',
  });
  const legacy = path.join(root, 'src', 'legacy');
  t.is(projectConfigFor(path.join(legacy, 'pay.ts')).plugin.prefix, 'shop:');
  for (const name of ['Pay.vue', 'pay.svc', 'pay.js'])
    t.is(projectConfigFor(path.join(legacy, name)).plugin.prefix, 'shop:', name);
  // The config's exclude holds for them as for its own names.
  t.is(projectConfigFor(path.join(legacy, 'old', 'refund.vue')).plugin.prefix, undefined);
});

test("an enclosing project's entry in the config it references or in one beside it: the folder without an entry gets it, and one written beside later weaves again", (t) => {
  const layouts = {
    // vite's template: a solution-style tsconfig.json, the entry in tsconfig.app.json.
    'enclosing-solution': {
      'tsconfig.json': { files: [], references: [{ path: './tsconfig.app.json' }] },
      'tsconfig.app.json': { ...entry({ prefix: 'shop:' }), include: ['src'] },
    },
    // `tspc -p tsconfig.build.json`, the entry there.
    'enclosing-sibling': {
      'tsconfig.json': { include: ['src'] },
      'tsconfig.build.json': { extends: './tsconfig.json', ...entry({ prefix: 'shop:' }) },
    },
  };
  for (const [name, configs] of Object.entries(layouts)) {
    const root = project(name, {
      ...configs,
      '.git/HEAD': 'ref: refs/heads/main\n',
      'src/legacy/tsconfig.json': { compilerOptions: { strict: true } },
      'src/legacy/pay.ts': TAGGED,
      'src/pay.ts': TAGGED,
    });
    t.is(projectConfigFor(path.join(root, 'src', 'pay.ts')).plugin.prefix, 'shop:', name);
    t.is(projectConfigFor(path.join(root, 'src', 'legacy', 'pay.ts')).plugin.prefix, 'shop:', name);
  }
  // A config with another entry written beside the enclosing one later: the woven-file cache weaves again.
  const root = path.join(TMP, 'enclosing-sibling');
  const file = path.join(root, 'src', 'legacy', 'pay.ts');
  const cache = path.join(root, 'cache');
  t.regex(wovenByRoutes(file, cache), /prefix: "shop:"/);
  fs.writeFileSync(
    path.join(root, 'tsconfig.prod.json'),
    JSON.stringify({ extends: './tsconfig.json', ...entry({ prefix: 'prod:' }) }),
  );
  const error = t.throws(() => wovenByRoutes(file, cache));
  t.regex(String(error?.message), /\{"prefix":"(?:shop|prod):"\}.*\{"prefix":"(?:shop|prod):"\}.* differ/);
});

test('names tsc does not list get the entry when the enclosing config would list TypeScript in their place (an include of the .ts files only)', (t) => {
  const root = project('enclosing-ts-include', {
    'tsconfig.json': { ...entry({ prefix: 'shop:' }), include: ['src/**/*.ts'] },
    '.git/HEAD': 'ref: refs/heads/main\n',
    'src/legacy/tsconfig.json': { compilerOptions: { strict: true } },
    'src/legacy/pay.ts': TAGGED,
    'src/legacy/pay.svc': TAGGED,
    'src/legacy/Pay.vue': '<script setup lang="ts">\n</script>\n',
  });
  const legacy = path.join(root, 'src', 'legacy');
  for (const name of ['pay.ts', 'pay.svc', 'Pay.vue'])
    t.is(projectConfigFor(path.join(legacy, name)).plugin.prefix, 'shop:', name);
});

/** A project tspc builds from src to dist (CommonJS), with the plugin entry prefix shop:. */
const TSPC_PROJECT = {
  compilerOptions: {
    ...entry({ prefix: 'shop:' }).compilerOptions,
    target: 'ES2022',
    module: 'commonjs',
    outDir: 'dist',
    rootDir: 'src',
    types: [],
    skipLibCheck: true,
  },
  include: ['src'],
};

/** `tspc -p dir` (ts-patch's compiler, lockweave's transformer by the project's own link); its output. */
function tspcBuild(dir: string): string {
  return execFileSync(process.execPath, [TSPC, '-p', dir], {
    cwd: dir,
    encoding: 'utf8',
  });
}

test('tspc building a file whose own project reads another entry fails at the file; with none there, the enclosing one is agreed', (t) => {
  const root = project('enclosing-tspc', {
    'tsconfig.json': TSPC_PROJECT,
    'src/legacy/tsconfig.json': { compilerOptions: { strict: true } },
    'src/legacy/pay.ts': TAGGED,
    'node_modules/lockweave': '',
  });
  fs.rmSync(path.join(root, 'node_modules', 'lockweave'));
  fs.symlinkSync(ROOT, path.join(root, 'node_modules', 'lockweave'));
  const tspc = () => tspcBuild(root);
  t.notThrows(tspc);
  t.regex(fs.readFileSync(path.join(root, 'dist', 'legacy', 'pay.js'), 'utf8'), /prefix: "shop:"/);
  fs.writeFileSync(
    path.join(root, 'src', 'legacy', 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, ...entry({ prefix: 'legacy:' }).compilerOptions } }),
  );
  const error = t.throws(tspc) as Error & { stdout?: string };
  t.regex(
    String(error.stdout),
    /pay\.ts is built here with the lockweave entry of tsconfig\.json \(\{"prefix":"shop:"\}\), but its own project \(src[\\/]legacy[\\/]tsconfig\.json\) says \{"prefix":"legacy:"\}/,
  );
});

test("tspc building a file through a linked folder fails at it when its real path's project reads another entry, as Node's loader and the bundlers reach it there", (t) => {
  const home = project('linked-folder', {
    'shared/tsconfig.json': { compilerOptions: { strict: true } },
    'shared/src/b.ts': TAGGED,
    'app/.git/HEAD': 'ref: refs/heads/main\n',
    'app/tsconfig.json': TSPC_PROJECT,
    'app/src/a.ts': TAGGED,
  });
  const app = path.join(home, 'app');
  fs.mkdirSync(path.join(app, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(app, 'node_modules', 'lockweave'));
  fs.symlinkSync(path.join('..', '..', 'shared', 'src'), path.join(app, 'src', 'shared'), 'dir');
  // What the routes read for the file by its real path: the shared folder's own project, no entry.
  t.is(projectConfigFor(path.join(home, 'shared', 'src', 'b.ts')).plugin.prefix, undefined);
  const error = t.throws(() => tspcBuild(app)) as Error & { stdout?: string };
  t.regex(
    String(error.stdout),
    /shared[\\/]b\.ts is built here with the lockweave entry of tsconfig\.json \(\{"prefix":"shop:"\}\), but its own project \(by its real path, .*shared[\\/]src[\\/]b\.ts/,
  );
});

test('a tsconfig.json above the project (its .git, its package.json) gives no entry: a stray one in a home folder decides no key', (t) => {
  const home = project('above-root', {
    'tsconfig.json': entry({ prefix: 'stray:' }),
    'app/.git/HEAD': 'ref: refs/heads/main\n',
    'app/package.json': { name: 'app' },
    'app/tsconfig.json': { compilerOptions: { strict: true } },
    'app/src/pay.ts': TAGGED,
  });
  const file = path.join(home, 'app', 'src', 'pay.ts');
  const config = projectConfigFor(file);
  t.is(config.plugin.prefix, undefined);
  t.false(config.hasEntry);
  t.false(config.configFiles.includes(path.join(home, 'tsconfig.json')), 'not what the answer depends on');
  t.notRegex(wovenByRoutes(file, path.join(home, 'cache')), /stray:/);
});

test('an enclosing tsconfig.json with an entry that does not list the folder (`files`, an include of other folders, an exclude): a tagged file there is refused, as tsc builds it with that entry when a listed file imports it', (t) => {
  const scopes = {
    'root-no-files': { files: [] },
    'root-entry-file': { files: ['lib/index.ts'] },
    'root-other-include': { include: ['lib'] },
    'root-excludes': { include: ['src'], exclude: ['src/legacy'] },
  };
  for (const [name, scope] of Object.entries(scopes)) {
    const root = project(name, {
      'tsconfig.json': { ...entry({ prefix: 'shop:' }), ...scope },
      '.git/HEAD': 'ref: refs/heads/main\n',
      'src/legacy/tsconfig.json': { compilerOptions: { strict: true } },
      'src/legacy/pay.ts': TAGGED,
      'src/legacy/plain.ts': SOURCE,
      'lib/index.ts': SOURCE,
    });
    const file = path.join(root, 'src', 'legacy', 'pay.ts');
    const config = projectConfigFor(file);
    t.is(config.plugin.prefix, undefined, name);
    t.false(config.hasEntry, name);
    // Still what the answer depends on: an include that comes to cover the folder weaves again.
    t.true(config.configFiles.includes(path.join(root, 'tsconfig.json')), name);
    const error = t.throws(() => wovenByRoutes(file, path.join(root, 'cache')), undefined, name);
    t.regex(
      String(error?.message),
      /pay\.ts holds @redisLock tags, but which plugin entry locks them cannot be told/,
      name,
    );
    // A file without tags there is woven (handed on) as it is.
    t.is(wovenByRoutes(path.join(root, 'src', 'legacy', 'plain.ts'), path.join(root, 'cache')), SOURCE, name);
  }
  const root = path.join(TMP, 'root-other-include');
  const file = path.join(root, 'src', 'legacy', 'pay.ts');
  const cache = path.join(root, 'cache');
  fs.writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ ...entry({ prefix: 'shop:' }), include: ['lib', 'src'] }),
  );
  t.regex(wovenByRoutes(file, cache), /prefix: "shop:"/);
});

test('the enclosing tsconfig.json of the project that includes the folder gives its entry, to a file written after the first was read too; one above the project does not count', (t) => {
  const home = project('enclosing-in-root', {
    'tsconfig.json': entry({ prefix: 'stray:' }),
    'shop/.git': 'gitdir: ../shop.git\n',
    'shop/package.json': { name: 'shop' },
    'shop/tsconfig.json': { ...entry({ prefix: 'shop:' }), include: ['src'] },
    'shop/src/legacy/tsconfig.json': { compilerOptions: { strict: true } },
    'shop/src/legacy/pay.ts': TAGGED,
  });
  const legacy = path.join(home, 'shop', 'src', 'legacy');
  const config = projectConfigFor(path.join(legacy, 'pay.ts'));
  t.is(config.plugin.prefix, 'shop:');
  t.true(config.hasEntry);
  t.is(config.configFile, path.join(legacy, 'tsconfig.json'), "the nearest project's compiler options");
  // A module a dev server sees written after the project's files were listed.
  fs.writeFileSync(path.join(legacy, 'refund.ts'), TAGGED);
  t.is(projectConfigFor(path.join(legacy, 'refund.ts')).plugin.prefix, 'shop:');
});

test("a woven file cached while the project's root marker decided which tsconfig.json counts: its removal weaves it again", (t) => {
  // app/ is a repository of its own (its .git): the tsconfig.json above it is none of its business.
  const root = project('root-marker-removed', {
    'tsconfig.json': { ...entry({ prefix: 'ROOTP_' }), include: ['app/src'] },
    'app/.git/HEAD': 'ref: refs/heads/main\n',
    'app/tsconfig.json': { compilerOptions: { strict: true } },
    'app/src/pay.ts': TAGGED,
  });
  const file = path.join(root, 'app', 'src', 'pay.ts');
  const cache = path.join(root, 'cache');
  t.notRegex(wovenByRoutes(file, cache), /ROOTP_/);
  t.notRegex(wovenByRoutes(file, cache), /ROOTP_/, 'from the cache');
  // Part of the project above now, whose tsconfig.json includes it: tspc -p there weaves it with ROOTP_.
  fs.rmSync(path.join(root, 'app', '.git'), { recursive: true });
  t.regex(wovenByRoutes(file, cache), /prefix: "ROOTP_"/);
});
