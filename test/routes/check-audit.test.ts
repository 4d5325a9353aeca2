// `lockweave check` against setups that weave or not, each shown on the real tool where it is installed:
//   ts-jest given only ts-patch's compiler (isolatedModules, module nodenext: ts-jest transpiles
//   through plain `typescript` then) — lockweave's runtime refuses the jest worker, and check
//   reports the hole; with lockweave/ts-jest among ts-jest's astTransformers check passes it
//   (test/routes/jest.test.ts runs that route).
//   lockweave/jest under package.json's "jest" key is the `jest` script's transform — no hole.
//   `nest build` compiles with plain TypeScript — a hole, closed by lockweave/nest in nest-cli.json with
//   the tsc builder (read here; test/behaviour/nest-scheduled-job.test.ts builds with the real Nest CLI),
//   or by lockweave/rspack in the rspack builder's rspack.config; in a monorepo, each project's own
//   plugins or builder (over the root's, as Nest reads them) is a hole named by its project.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'routes', 'check');
const JEST_FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'jest');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const NODE24 = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const TS_JEST_HOLE =
  /ts-jest is given ts-patch's compiler, which it skips in isolatedModules mode with a Node module kind/;

const scratch = routeScratch('routes', 'check');
const TMP = scratch.dir;

const runChild = childRunner(2);

function check(tsconfig: string): Promise<Ran> {
  return runChild(process.execPath, [CLI, 'check', '-p', tsconfig], { cwd: ROOT });
}

/**
 * A copy of the nest fixture checked with `nestCli` as its Nest CLI config (the fixture's own when
 * undefined; in `configFile` instead of nest-cli.json when named), `scripts` added to its
 * package.json and `files` written beside them.
 */
function nestVariant(
  name: string,
  nestCli: object | undefined,
  scripts: Record<string, string> = {},
  files: Record<string, string> = {},
  configFile = 'nest-cli.json',
): Promise<Ran> {
  const dir = path.join(TMP, `nest-${name}`);
  fs.cpSync(path.join(FIXTURES, 'nest'), dir, { recursive: true });
  if (nestCli) {
    fs.rmSync(path.join(dir, 'nest-cli.json'));
    fs.writeFileSync(path.join(dir, configFile), JSON.stringify(nestCli));
  }
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  Object.assign(manifest.scripts, scripts);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  return check(path.join(dir, 'tsconfig.json'));
}

/** The jest route fixture with ts-jest given only ts-patch's compiler, its tsconfig in isolatedModules mode with module nodenext. */
function tsJestPatchProject(): string {
  const dir = path.join(TMP, 'ts-jest-patch-compiler');
  fs.cpSync(JEST_FIXTURE, dir, { recursive: true });
  const tsconfig = path.join(dir, 'tsconfig.json');
  fs.writeFileSync(
    tsconfig,
    fs
      .readFileSync(tsconfig, 'utf8')
      .replace('"module": "commonjs",', '"module": "nodenext", "isolatedModules": true,'),
  );
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ private: true, scripts: { test: 'jest -c jest.ts-jest-patch.config.cjs' } }),
  );
  return dir;
}

test("ts-jest given only ts-patch's compiler, isolatedModules, module nodenext: the worker is refused, and check reports the hole", async (t) => {
  const dir = tsJestPatchProject();
  const ran = await runChild(
    NODE24,
    [
      JEST,
      '--rootDir',
      dir,
      '--ci',
      '--no-cache',
      '--colors=false',
      '-c',
      'jest.ts-jest-patch.config.cjs',
      'tests/locks',
    ],
    { cwd: dir, env: { REDIS_URL: scratch.redis().url, RUN_ID: 'patch-nodenext', FORCE_COLOR: '0' } },
  );
  t.not(ran.status, 0, ran.output);
  t.regex(ran.output, /lockweave: jest is running TypeScript \(locks\.test\.ts\) without a lockweave transformer/);
  t.notRegex(ran.output, /is not in Redis while the body runs/);
  const checked = await check(path.join(dir, 'tsconfig.json'));
  t.is(checked.status, 1, checked.output);
  t.regex(checked.stderr, /package\.json scripts\.test: jest -c jest\.ts-jest-patch\.config\.cjs\n {4}unlocked: /);
  t.regex(checked.stderr, TS_JEST_HOLE);
  t.regex(checked.stderr, /fix: jest config: transform: \{ '\^\.\+\\\\\.tsx\?\$': 'lockweave\/jest' \}/);
  t.regex(checked.stderr, /astTransformers: \{ before: \['lockweave\/ts-jest'\] \}/);
});

test("check reads the jest config: ts-patch's compiler alone is a hole, lockweave/ts-jest is not", async (t) => {
  const patch = await check(path.join(FIXTURES, 'ts-jest-patch-compiler', 'tsconfig.json'));
  t.is(patch.status, 1, patch.output);
  t.regex(patch.stderr, TS_JEST_HOLE);
  const ast = await check(path.join(FIXTURES, 'ts-jest-ast-transformer', 'tsconfig.json'));
  t.is(ast.status, 0, ast.output);
});

test("check reads the jest config's patterns: a split that gives TypeScript to plain ts-jest is a hole, babel-jest for JavaScript is not", async (t) => {
  const split = await check(path.join(FIXTURES, 'jest-split', 'tsconfig.json'));
  t.is(split.status, 1, split.output);
  t.regex(split.stderr, /the jest config also gives files to ts-jest, which does not weave/);
  const babel = await check(path.join(FIXTURES, 'jest-babel-js', 'tsconfig.json'));
  t.is(babel.status, 0, babel.output);
});

test('check: lockweave/jest under package.json\'s "jest" key is what the `jest` script runs, no hole', async (t) => {
  const result = await check(path.join(FIXTURES, 'jest-key', 'tsconfig.json'));
  t.is(result.status, 0, result.output);
  t.regex(result.stdout, /\b0 toolchain holes\b/);
});

test('check: `nest build` compiles with plain TypeScript, a hole with its fix; lockweave/nest or a patched TypeScript closes it', async (t) => {
  const result = await check(path.join(FIXTURES, 'nest', 'tsconfig.json'));
  t.is(result.status, 1, result.output);
  t.regex(result.stderr, /nest-cli\.json\n {4}unlocked: the Nest CLI compiles with plain TypeScript/);
  t.regex(
    result.stderr,
    /fix: nest-cli\.json: "compilerOptions": \{ "builder": "tsc", "plugins": \["lockweave\/nest"\] \}/,
  );

  const plugin = { sourceRoot: 'src', compilerOptions: { plugins: ['lockweave/nest'] } };
  // Patched by a postinstall `ts-patch install`, nest's TypeScript runs the plugin entry.
  const rspackBuild = { 'build:rspack': 'nest build --builder rspack' };
  const [patched, withPlugin, onSwc, onWebpack, onRspack, onRspackWoven] = await Promise.all([
    nestVariant('patched', undefined, { postinstall: 'ts-patch install' }),
    nestVariant('plugin', plugin),
    nestVariant('plugin-swc', { ...plugin, compilerOptions: { ...plugin.compilerOptions, builder: 'swc' } }),
    nestVariant('plugin-webpack', plugin, { 'build:webpack': 'nest build --webpack' }),
    nestVariant('plugin-rspack', plugin, rspackBuild),
    nestVariant('rspack-plugin', plugin, rspackBuild, {
      'rspack.config.js':
        "module.exports = (options) => ({ ...options, plugins: [...options.plugins, require('lockweave/rspack')()] });\n",
    }),
  ]);
  t.is(patched.status, 0, patched.output);
  t.is(withPlugin.status, 0, withPlugin.output);
  // lockweave/nest runs in Nest's tsc builder only; its rspack builder weaves with lockweave/rspack in rspack.config.
  t.is(onSwc.status, 1, onSwc.output);
  t.is(onWebpack.status, 1, onWebpack.output);
  t.regex(onWebpack.stderr, /scripts\.build:webpack: nest build --webpack/);
  t.is(onRspack.status, 1, onRspack.output);
  t.regex(onRspack.stderr, /scripts\.build:rspack: nest build --builder rspack/);
  t.is(onRspackWoven.status, 0, onRspackWoven.output);
});

test("check reads a Nest monorepo as Nest does: a project's own plugins or builder replace the root's, a hole naming the project", async (t) => {
  // The root's settings weave; each project below overrides one of them (Nest's getValueOrDefault
  // takes the project's value over the root's, a list whole).
  const monorepo = (compilerOptions: object) => ({
    sourceRoot: 'apps/api/src',
    monorepo: true,
    root: 'apps/api',
    compilerOptions: { builder: 'tsc', plugins: ['lockweave/nest'] },
    projects: { api: { type: 'application', root: 'apps/api', sourceRoot: 'apps/api/src', compilerOptions } },
  });
  const buildApi = { build: 'nest build api' };
  const [ownPlugins, ownWithLockweave, ownBuilder, dotFile, builderFlag] = await Promise.all([
    nestVariant('monorepo-own-plugins', monorepo({ plugins: ['@nestjs/swagger'] }), buildApi),
    nestVariant('monorepo-own-lockweave', monorepo({ plugins: ['@nestjs/swagger', 'lockweave/nest'] }), buildApi),
    nestVariant('monorepo-own-builder', monorepo({ builder: 'swc' }), buildApi),
    nestVariant('monorepo-dot-file', monorepo({ plugins: [] }), buildApi, {}, '.nest-cli.json'),
    nestVariant('monorepo-builder-flag', monorepo({}), { build: 'nest build api -b swc' }),
  ]);

  t.is(ownPlugins.status, 1, ownPlugins.output);
  t.regex(ownPlugins.stdout, /\b1 toolchain hole\b/);
  t.regex(
    ownPlugins.stderr,
    /nest-cli\.json \(project api\)\n {4}unlocked: project api has its own compilerOptions\.plugins \(\["@nestjs\/swagger"\]\), which Nest takes instead of the root's/,
  );
  t.regex(
    ownPlugins.stderr,
    /fix: nest-cli\.json: "projects": \{ "api": \{ "compilerOptions": \{ "plugins": \["@nestjs\/swagger", "lockweave\/nest"\] \} \} \}/,
  );
  t.is(ownWithLockweave.status, 0, ownWithLockweave.output);

  t.is(ownBuilder.status, 1, ownBuilder.output);
  t.regex(
    ownBuilder.stderr,
    /nest-cli\.json \(project api\)\n {4}unlocked: project api builds with swc \(set by its own compilerOptions\.builder\)/,
  );
  // Nest reads .nest-cli.json when there is no nest-cli.json.
  t.is(dotFile.status, 1, dotFile.output);
  t.regex(
    dotFile.stderr,
    /\.nest-cli\.json \(project api\)\n {4}unlocked: project api has its own compilerOptions\.plugins \(\[\]\)/,
  );
  // The config weaves every project; the script's flag overrides it for the one it builds.
  t.is(builderFlag.status, 1, builderFlag.output);
  t.regex(
    builderFlag.stderr,
    /scripts\.build \(project api\): nest build api -b swc\n {4}unlocked: project api builds with swc \(set by the command\)/,
  );
});

test("check prints a Nest config's names (a project, a plugin, an rspack config) in its holes with credentials hidden and control characters escaped", async (t) => {
  const forged = 'web\nlockweave check: 0 toolchain holes';
  const result = await nestVariant(
    'names-printed',
    {
      sourceRoot: 'apps/api/src',
      monorepo: true,
      root: 'apps/api',
      compilerOptions: { builder: 'tsc', plugins: ['lockweave/nest'] },
      projects: {
        api: {
          root: 'apps/api',
          compilerOptions: { plugins: ['https://deploy:Hunter2Plugin@git.example/nest-plugin.git'] },
        },
        [forged]: {
          root: 'apps/web',
          compilerOptions: {
            builder: { type: 'rspack', options: { configPath: 'https://ci:Hunter2Rspack@configs.example/rspack.js' } },
          },
        },
      },
    },
    // The config weaves project jobs; the command's flag leaves it unlocked: a hole of its own
    // beside the config's holes for the other projects.
    { build: 'nest build jobs -b swc' },
  );
  t.is(result.status, 1, result.output);
  t.false(result.output.includes('Hunter2'), result.output);
  t.false(/^lockweave check: 0/m.test(result.output), result.output);
  t.regex(result.stderr, /fix: .*"plugins": \["https:\/\/…@git\.example\/nest-plugin\.git", "lockweave\/nest"\]/);
  t.regex(
    result.stderr,
    /fix: plugins: \[require\('lockweave\/rspack'\)\(\)\] in https:\/\/…@configs\.example\/rspack\.js/,
  );
  t.regex(result.stderr, /project web\\nlockweave check: 0 toolchain holes/);
  t.regex(
    result.stderr,
    /scripts\.build \(project jobs\): nest build jobs -b swc\n {4}unlocked: project jobs builds with swc/,
  );
});
