// Bun's preload (lockweave/bun/register) with no [loader] for `.svc`: Bun's `require` runs a file
// under a name no route weaves as JavaScript, so a tagged one is refused as Bun resolves it, before
// its tagged body runs, whatever form the specifier takes — package.json `imports`, a tsconfig
// `paths` alias, a query, a workspace package's file — and under any name Bun runs as code, `.sql`
// among them. Names Bun hands over as data (`.md`, `.txt`) load as they always did.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import type { Ran } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';
import { scratchRunner } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'bun-specifiers');
const scratch = routeScratch('routes', 'bun-specifiers');
const APP_DIR = path.join(scratch.dir, 'app');
const BUN = path.join(ROOT, 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun');
/** What the fixture's tagged method prints first: its body ran, unlocked. */
const BODY_RAN = /TAGGED BODY RAN/;

test.before(() => {
  fs.cpSync(FIXTURE, APP_DIR, { recursive: true });
  // A workspace package, linked as npm links one: Bun resolves through the link to the project's file.
  fs.mkdirSync(path.join(APP_DIR, 'node_modules'));
  fs.symlinkSync(path.join('..', 'packages', 'ledger-pkg'), path.join(APP_DIR, 'node_modules', 'ledger-pkg'), 'dir');
});

const runInApp = scratchRunner(scratch, 3, APP_DIR);

/** `bun <entry>` in the app, whose bunfig.toml preloads lockweave/bun/register. */
function run(entry: string, env: Record<string, string> = {}): Promise<Ran> {
  return runInApp(BUN, [entry], { env });
}

function refusal(file: string): RegExp {
  const name = file.replace(/[.]/g, '\\.');
  return new RegExp(
    `lockweave: Bun ran \\S+${name}, which holds @redisLock tags, as code under a name lockweave's routes do not weave`,
  );
}

for (const [form, specifier, file] of [
  ['a package.json `imports` key', '#ledger', 'src/ledger.svc'],
  ['a package.json `imports` key with an extension', '#ledger.svc', 'src/ledger.svc'],
  ['a tsconfig `paths` alias', '@svc/ledger.svc', 'src/ledger.svc'],
  ['a query', './ledger.svc?x', 'src/ledger.svc'],
  ['a workspace package', 'ledger-pkg/ledger.svc', 'packages/ledger-pkg/ledger.svc'],
  ['a name lockweave counts as data and Bun runs as code', './ledger.sql', 'src/ledger.sql'],
])
  test(`bun with lockweave/bun/register: require of a tagged file through ${form} (${specifier}) is refused before its body runs`, async (t) => {
    const ran = await run('src/app.cjs', { SPECIFIER: specifier });
    t.not(ran.status, 0, ran.output);
    t.regex(ran.output, refusal(file));
    t.notRegex(ran.stdout, BODY_RAN);
  });

test('bun with lockweave/bun/register: require of tagged text under names Bun hands over as data (.md, .txt) is not refused', async (t) => {
  const ran = await run('src/notes-app.cjs');
  t.is(ran.status, 0, ran.output);
  t.deepEqual(JSON.parse(ran.stdout.trim()), { md: 'string', txt: 'string' });
});
