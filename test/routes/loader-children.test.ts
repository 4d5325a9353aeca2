// A process under lockweave/register that starts a worker thread or forks a process with an
// `execArgv` or an `env` of its own, lockweave/register left out: the child's TypeScript, stripped by Node
// with its tags, would run unlocked and never load the runtime that refuses it. lockweave/register
// goes first into the child's execArgv: its tagged method holds its key.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES, scratchRunner } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'loader-children');
const scratch = routeScratch('routes', 'loader-children');
const run = scratchRunner(scratch, 3);

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

for (const [nodeName, node] of Object.entries(NODE_LINES)) {
  for (const kind of ['worker', 'fork']) {
    test(`${nodeName}: a ${kind} started with execArgv: [] under lockweave/register holds its key`, async (t) => {
      const result = await run(node, ['--import', 'lockweave/register', 'main.ts'], { env: { CHILD_KIND: kind } });
      t.regex(result.stdout, new RegExp(`^RESULT ${kind} LOCKED$`, 'm'), result.output);
    });
    test(`${nodeName}: a ${kind} given an env without NODE_OPTIONS, lockweave/register given in NODE_OPTIONS, holds its key`, async (t) => {
      const result = await run(node, ['main.ts'], {
        env: { CHILD_KIND: kind, CHILD_OPTIONS: 'env', NODE_OPTIONS: '--import lockweave/register' },
      });
      t.regex(result.stdout, new RegExp(`^RESULT ${kind} LOCKED$`, 'm'), result.output);
    });
    for (const given of ['on the command line', 'in NODE_OPTIONS'])
      test(`${nodeName}: a ${kind} started with no options, after the process took lockweave/register given ${given} out of its execArgv and NODE_OPTIONS, holds its key`, async (t) => {
        const onCommandLine = given === 'on the command line';
        const result = await run(node, onCommandLine ? ['--import', 'lockweave/register', 'main.ts'] : ['main.ts'], {
          env: {
            CHILD_KIND: kind,
            CHILD_OPTIONS: 'none',
            ...(onCommandLine ? {} : { NODE_OPTIONS: '--import lockweave/register' }),
          },
        });
        t.regex(result.stdout, new RegExp(`^RESULT ${kind} LOCKED$`, 'm'), result.output);
      });
  }
}
