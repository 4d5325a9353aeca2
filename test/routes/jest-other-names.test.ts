// jest and a file under a name of the app's own (`pay.svc`) that holds TypeScript with tagged
// methods: lockweave/jest and lockweave/ts-jest read the jest config, and fail the test files when
// such a file would go to a transformer other than lockweave/jest — the app's own, plain ts-jest,
// or ts-jest with lockweave/ts-jest (ts-jest compiles TypeScript and JavaScript names only, and
// hands any other on untouched) — before any tagged body runs. Docs and templates a raw-text
// transformer turns into strings, which mention the tag in prose or a code sample, are data: the
// tests run. Given lockweave/jest, a .svc file's tagged methods hold their keys.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';
import { scratchJest } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'jest-other-names');
const scratch = routeScratch('routes', 'jest-other-names');

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

const jest = scratchJest(scratch);

const OTHER_NAME =
  /lockweave: jest's transform gives files under a name that is not TypeScript's, and that hold methods with @redisLock tags, to a transformer other than lockweave\/jest/;
const FIX =
  /Give that name to lockweave\/jest[^\n]*transform: \{ '\\\\\.svc\$': 'lockweave\/jest' \}[^\n]*or give the files a \.ts name/;

for (const [name, config, named] of [
  [
    "the app's own transformer",
    'jest.app-transform.config.cjs',
    /src\/pay\.svc \(to plain-transpile\.cjs, pattern \\\.svc\$\)/,
  ],
  ['plain ts-jest', 'jest.ts-jest.config.cjs', /src\/ledger\.svc \(to ts-jest, pattern \\\.svc\$\)/],
  [
    'ts-jest with lockweave/ts-jest',
    'jest.ts-jest-woven.config.cjs',
    /src\/ledger\.svc \(to ts-jest, pattern \\\.\(ts\|svc\)\$\)/,
  ],
] as const) {
  test.serial(
    `a tagged .svc file given to ${name}: the test file fails, naming the file, its transformer, its pattern and the fix, before any tagged body runs`,
    async (t) => {
      const result = await jest(config);
      t.not(result.status, 0, result.output);
      t.regex(result.output, OTHER_NAME);
      t.regex(result.output, named);
      t.regex(result.output, FIX);
      t.notRegex(result.output, /TAGGED BODY RAN/);
    },
  );
}

test.serial(
  'docs and templates a raw-text transformer takes, which mention the tag in prose and a code sample: the tests run',
  async (t) => {
    const result = await jest('jest.raw-text.config.cjs');
    t.is(result.status, 0, result.output);
    t.regex(result.output, /DOCS READ/);
  },
);

test.serial('.svc files given to lockweave/jest: their tagged methods hold their keys', async (t) => {
  const result = await jest('jest.woven.config.cjs');
  t.is(result.status, 0, result.output);
  t.regex(result.output, /TAGGED BODY RAN LOCKED/);
  t.notRegex(result.output, /UNLOCKED/);
});

test('the routing check of other names: tagged methods, or tag errors in text that is code; prose, data names and ignored files pass', (t) => {
  const { misroutedTags } = require(
    path.join(ROOT, 'dist', 'transformer', 'routes', 'jest-routing.js'),
  ) as typeof import('../../transformer/routes/jest-routing');
  const self = path.join(ROOT, 'dist', 'transformer', 'routes', 'jest.js');
  const raw = path.join(scratch.dir, 'app', 'raw-text.cjs');
  const dir = path.join(scratch.dir, 'routing');
  const tag = `/** @${'redisLock'} businessFlag=payOrder keyName=orderNo */`;
  const files = {
    // Code with a misspelled attribute: lockweave/jest would refuse it, another transformer runs it unlocked.
    'src/typo.svc': `export class Pay {\n  /** @${'redisLock'} bussinessFlag=payOrder keyName=orderNo */\n  async pay(orderNo: string) {}\n}\n`,
    'src/pay.tpl': `export class Pay {\n  ${tag}\n  async pay(orderNo: string) {}\n}\n`,
    // Prose: its tag shares a line with text, an error the weave reports, but nothing of it is code.
    'docs/notes.tpl': `<p>Write ${tag} above an async method.</p>\n`,
    // A data name (isOtherCompiledName): never read.
    'docs/pay.md': `export class Pay {\n  ${tag}\n  async pay(orderNo: string) {}\n}\n`,
    'vendor/pay.svc': `export class Pay {\n  ${tag}\n  async pay(orderNo: string) {}\n}\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const error = misroutedTags(
    {
      rootDir: dir,
      transform: [
        ['\\.ts$', self, {}],
        ['\\.(svc|tpl|md)$', raw, {}],
      ],
      transformIgnorePatterns: ['/vendor/'],
    },
    'other names',
    self,
  );
  t.regex(String(error), /src\/pay\.tpl \(to raw-text\.cjs, pattern \\\.\(svc\|tpl\|md\)\$\)/);
  t.regex(String(error), /src\/typo\.svc \(to raw-text\.cjs/);
  t.regex(String(error), /transform: \{ '\\\\\.\(\?:(tpl\|svc|svc\|tpl)\)\$': 'lockweave\/jest' \}/);
  t.notRegex(String(error), /notes\.tpl|pay\.md|vendor/);
  // lockweave/jest given the name weaves it: nothing to walk for.
  t.is(
    misroutedTags({ rootDir: dir, transform: [['\\.(ts|svc|tpl)$', self, {}]] }, 'lockweave/jest only', self),
    undefined,
  );
});
