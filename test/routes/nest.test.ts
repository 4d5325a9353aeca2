// lockweave/nest on the real Nest CLI (nest build, its tsc builder): a bad tag fails the build with
// the tag's file:line:col among the type errors, options given to the plugin in nest-cli.json
// are refused, and a monorepo project whose own plugins drop it builds unwoven, which `lockweave
// check` reports. That the built app locks is test/behaviour/nest-scheduled-job.test.ts's.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT, linkPackage } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';

const NEST = path.join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
const TMP = path.join(ROOT, 'test', '.tmp', 'routes', 'nest');
const runChild = childRunner(2);

test.before(() => {
  linkPackage();
  fs.rmSync(TMP, { recursive: true, force: true });
});

/** A copy of examples/nest, changed by `change`, built by `nest build` (with `args`). */
function nestBuild(name: string, change: (dir: string) => void, args: string[] = []): Promise<Ran> {
  const dir = path.join(TMP, name);
  fs.cpSync(path.join(ROOT, 'examples', 'nest'), dir, { recursive: true, filter: (from) => !from.endsWith('dist') });
  change(dir);
  return runChild(process.execPath, [NEST, 'build', ...args], { cwd: dir, env: { NO_COLOR: '1', FORCE_COLOR: '0' } });
}

test('nest build with a bad tag fails, naming the tag at file:line:col; the method is emitted as a body that throws', async (t) => {
  const built = await nestBuild('bad-tag', (dir) =>
    fs.writeFileSync(
      path.join(dir, 'src', 'bad.mts'),
      'export class Bad {\n  /** @redisLock bussinessFlag=x */\n  async run(): Promise<void> {}\n}\n',
    ),
  );
  t.is(built.status, 1, built.output);
  t.regex(built.output, /src\/bad\.mts:2:18 - error TS93010: @redisLock: unknown attribute bussinessFlag/);
  const emitted = fs.readFileSync(path.join(TMP, 'bad-tag', 'dist', 'bad.mjs'), 'utf8');
  t.regex(emitted, /throw /);
});

test("options given to lockweave/nest are refused: prefix and defaults are the tsconfig entry's", async (t) => {
  const built = await nestBuild('options', (dir) =>
    fs.writeFileSync(
      path.join(dir, 'nest-cli.json'),
      JSON.stringify({
        sourceRoot: 'src',
        compilerOptions: { plugins: [{ name: 'lockweave/nest', options: { prefix: 'X_' } }] },
      }),
    ),
  );
  t.not(built.status, 0, built.output);
  t.regex(built.output, /lockweave\/nest takes no options/);
  t.false(fs.existsSync(path.join(TMP, 'options', 'dist', 'report.job.mjs')));
});

test("a monorepo project's own plugins replace the root's lockweave/nest: `nest build api` emits it unlocked and check names the project", async (t) => {
  // Nest takes a project's compilerOptions.plugins instead of the root's: lockweave/nest must be in the project's list.
  const monorepo = (plugins: string[]) => (dir: string) => {
    fs.writeFileSync(
      path.join(dir, 'nest-cli.json'),
      JSON.stringify({
        sourceRoot: 'src',
        monorepo: true,
        root: '.',
        compilerOptions: { builder: 'tsc', plugins: ['lockweave/nest'] },
        projects: { api: { type: 'application', root: '.', sourceRoot: 'src', compilerOptions: { plugins } } },
      }),
    );
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ private: true, scripts: { build: 'nest build api' } }),
    );
  };
  const [replaced, own] = await Promise.all([
    nestBuild('monorepo-replaced', monorepo([]), ['api']),
    nestBuild('monorepo-own', monorepo(['lockweave/nest']), ['api']),
  ]);
  t.is(replaced.status, 0, replaced.output);
  t.is(own.status, 0, own.output);
  const lockweave = (name: string, ...args: string[]) =>
    runChild(process.execPath, [CLI, ...args, '-p', 'tsconfig.json'], { cwd: path.join(TMP, name) });
  const [unwoven, unwovenCheck, woven, wovenCheck] = await Promise.all([
    lockweave('monorepo-replaced', 'verify', 'dist'),
    lockweave('monorepo-replaced', 'check'),
    lockweave('monorepo-own', 'verify', 'dist'),
    lockweave('monorepo-own', 'check'),
  ]);
  t.is(unwoven.status, 1, unwoven.output);
  t.regex(unwoven.stderr, /src\/report\.job\.mts:\d+:\d+ - ReportJob\.writeReport/);
  t.is(unwovenCheck.status, 1, unwovenCheck.output);
  t.regex(
    unwovenCheck.stderr,
    /nest-cli\.json \(project api\)\n {4}unlocked: project api has its own compilerOptions\.plugins \(\[\]\)/,
  );
  t.is(woven.status, 0, woven.output);
  t.is(wovenCheck.status, 0, wovenCheck.output);
});
