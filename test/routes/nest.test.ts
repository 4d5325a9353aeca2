// lockweave/nest on the real Nest CLI (nest build, its tsc builder): a bad tag fails the build with
// the tag's file:line:col among the type errors, and options given to the plugin in nest-cli.json
// are refused. That the built app locks is test/behaviour/nest-scheduled-job.test.ts's.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, linkPackage } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';

const NEST = path.join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
const TMP = path.join(ROOT, 'test', '.tmp', 'routes', 'nest');
const runChild = childRunner(2);

test.before(() => {
  linkPackage();
  fs.rmSync(TMP, { recursive: true, force: true });
});

/** A copy of examples/nest, changed by `change`, built by `nest build`. */
function nestBuild(name: string, change: (dir: string) => void): Promise<Ran> {
  const dir = path.join(TMP, name);
  fs.cpSync(path.join(ROOT, 'examples', 'nest'), dir, { recursive: true, filter: (from) => !from.endsWith('dist') });
  change(dir);
  return runChild(process.execPath, [NEST, 'build'], { cwd: dir, env: { NO_COLOR: '1', FORCE_COLOR: '0' } });
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
