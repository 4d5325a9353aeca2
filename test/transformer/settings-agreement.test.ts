// Whether two lockweave plugin entries lock the same keys with the same settings (settingsText,
// transformer/plugin-entry.ts), which tspc's checks and the routes' agreement of configs ask: equal
// settings in other spellings agree (`"lockTime": 20` and `"20s"`, `"true"` and `true`, an empty
// `defaults` and none), while other settings, and an option set to its built-in value against one
// left out (configure() at run time changes only the latter), still differ. Then through
// lockweave/register, with a tsconfig.build.json beside the tsconfig.json.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { settingsNote, settingsText } from '../../transformer/plugin-entry';
import { weaveSource } from '../../transformer/weave-source';
import { ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES, scratchRunner } from '../helpers/scratch-runs';

type Entry = Record<string, unknown>;
const agree = (a: Entry, b: Entry) => settingsText(a) === settingsText(b);

test('the same settings in other spellings agree', (t) => {
  const same: [Entry, Entry][] = [
    [{ defaults: { lockTime: '20s' } }, { defaults: { lockTime: 20 } }],
    [{ defaults: { lockTime: '20s' } }, { defaults: { lockTime: '20000ms' } }],
    [{ defaults: { waitTime: '1m' } }, { defaults: { waitTime: '60s' } }],
    [{ defaults: { waitTime: '1.5s' } }, { defaults: { waitTime: '1500ms' } }],
    [{ defaults: { minHold: '0' } }, { defaults: { minHold: 0 } }],
    [{ defaults: { watchdog: 'false' } }, { defaults: { watchdog: false } }],
    [{ defaults: { retries: '5' } }, { defaults: { retries: 5 } }],
    [
      { prefix: 'shop:', defaults: { retries: 5, lockTime: '20s' } },
      { defaults: { lockTime: 20, retries: 5 }, prefix: 'shop:' },
    ],
    [{}, { defaults: {} }],
    // The reader takes a prefix among the defaults too, and weaves it as the entry's own.
    [{ prefix: 'shop:' }, { defaults: { prefix: 'shop:' } }],
    // What ts-patch reads of an entry decides no key.
    [
      { transform: 'lockweave/transformer', prefix: 'shop:' },
      { prefix: 'shop:', transformProgram: true },
    ],
  ];
  for (const [a, b] of same) t.true(agree(a, b), `${JSON.stringify(a)} and ${JSON.stringify(b)}`);
});

test('other settings differ', (t) => {
  const other: [Entry, Entry][] = [
    [{ prefix: 'a:' }, { prefix: 'b:' }],
    [{ defaults: { lockTime: '20s' } }, { defaults: { lockTime: '21s' } }],
    [{ defaults: { lockTime: 20 } }, { defaults: { lockTime: '20ms' } }],
    [{ defaults: { watchdog: false } }, { defaults: { watchdog: true } }],
  ];
  for (const [a, b] of other) {
    t.false(agree(a, b), `${JSON.stringify(a)} and ${JSON.stringify(b)}`);
    t.is(settingsNote([a, b]), '', 'no note: they differ in value');
  }
});

test('an option set to its built-in value differs from one left out, with a note saying why', (t) => {
  // The woven call carries the one set; configure({ prefix }) and configure({ defaults }) change the one left out.
  const pairs: [Entry, Entry][] = [
    [{}, { prefix: 'LOCK_' }],
    [{}, { defaults: { lockTime: '30s' } }],
    [{ prefix: 'shop:' }, { prefix: 'shop:', defaults: { retries: 3 } }],
  ];
  for (const [a, b] of pairs) {
    t.false(agree(a, b), `${JSON.stringify(a)} and ${JSON.stringify(b)}`);
    t.regex(settingsNote([a, b]), /built-in value.*configure\(\{ prefix \}\)/);
  }
});

test('the text is the settings as read, in one order, durations in whole seconds where they are', (t) => {
  t.is(
    settingsText({ defaults: { lockTime: 20, retries: '5' }, prefix: 'shop:' }),
    '{"prefix":"shop:","defaults":{"lockTime":"20s","retries":5}}',
  );
  t.is(settingsText({ defaults: { waitTime: '1.5s', minHold: 0 } }), '{"defaults":{"minHold":0,"waitTime":"1500ms"}}');
  t.is(settingsText({ prefix: 'LOCK_' }), '{"prefix":"LOCK_"}');
  t.is(settingsText({}), '{}');
});

test('settings that cannot be read stay as written, agree with no readable ones, and fail the weave', (t) => {
  const bad = { defaults: { lockTime: 'soon', zzz: 1 } };
  t.true(settingsText(bad).includes('"soon"'));
  t.true(agree(bad, { defaults: { zzz: 1, lockTime: 'soon' } }));
  t.false(agree(bad, { defaults: { lockTime: '30s' } }));
  t.false(agree({ prefix: 5 }, { prefix: '5' }));
  // Not hidden: every route that weaves with them reports them (tspc through the same reader).
  const code =
    'export class Pay {\n  /** @redisLock businessFlag=pay keyName=id */\n  async pay(id: string) { return id; }\n}\n';
  const { errors } = weaveSource('pay.ts', code, bad);
  t.true(
    errors.some((error) => /soon/.test(error.formatted)),
    errors.map((error) => error.formatted).join('\n'),
  );
});

// Through lockweave/register: a tsconfig.build.json beside the tsconfig.json, both read.
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'settings-agreement');
const scratch = routeScratch('transformer', 'settings-agreement');
const run = scratchRunner(scratch, 2);

/** The fixture app at `name` in the scratch folder, its tsconfig.json with `dev` and tsconfig.build.json with `build`. */
function app(name: string, dev: Entry, build: Entry): string {
  const dir = path.join(scratch.dir, name);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const plugins = (settings: Entry) => [{ transform: 'lockweave/transformer', ...settings }];
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    strict: true,
    allowImportingTsExtensions: true,
    noEmit: true,
  };
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, plugins: plugins(dev) } }),
  );
  fs.writeFileSync(
    path.join(dir, 'tsconfig.build.json'),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { noEmit: false, outDir: 'dist', plugins: plugins(build) },
      include: ['src'],
    }),
  );
  return name;
}

const start = (name: string) =>
  run(NODE_LINES['Node 24'], ['--import', 'lockweave/register', path.join(name, 'src', 'main.ts')], {
    env: { LOCKWEAVE_CACHE: 'off' },
  });

test('lockweave/register: configs beside each other with the same settings in other spellings start, and lock with them', async (t) => {
  const spelt = await start(app('spelt', { defaults: { lockTime: '20s' } }, { defaults: { lockTime: 20 } }));
  t.is(spelt.status, 0, spelt.output);
  t.regex(spelt.stdout, /RESULT LOCK_payOrder_T1 20s T1/);
  const prefixed = await start(
    app('prefixed', { prefix: 'shop:', defaults: { retries: 5 } }, { defaults: { retries: '5' }, prefix: 'shop:' }),
  );
  t.is(prefixed.status, 0, prefixed.output);
  t.regex(prefixed.stdout, /RESULT shop:payOrder_T1 30s T1/);
});

test('lockweave/register: configs beside each other with other settings are refused', async (t) => {
  const cases: [string, Entry, Entry][] = [
    ['prefixes', { prefix: 'a:' }, { prefix: 'b:' }],
    ['lock-times', { defaults: { lockTime: '20s' } }, { defaults: { lockTime: '21s' } }],
    // The built-in prefix set in one and left out of the other: configure({ prefix }) would move only one.
    ['prefix-explicit', {}, { prefix: 'LOCK_' }],
  ];
  for (const [name, dev, build] of cases) {
    const ran = await start(app(name, dev, build));
    t.not(ran.status, 0, `${name}: ${ran.output}`);
    t.regex(ran.output, /lockweave: the lockweave plugin entries of .* differ/, name);
    t.notRegex(ran.output, /RESULT/, name);
  }
});
