// jest: a tagged method beside a lock defined by hand whose site only ends with the method's name —
// `InvoiceService.pay` beside a tagged `OrderService.pay`, `settle` beside a tagged
// `OrderService.settle`, or at the exact site on another business's keys (`refundLedger` beside a tagged
// `businessFlag=refundOrder`). Only the exact site and businessFlag the transformer writes show a method woven: a config
// that gives the module to plain ts-jest is refused, naming it, before the body runs; ts-jest with
// lockweave/ts-jest, on a cold and on a warm jest cache (which compiles nothing), locks.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';
import { scratchJest } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'jest-hand-defined-site');
const scratch = routeScratch('routes', 'jest-hand-defined-site');

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

const jest = scratchJest(scratch);

test.serial(
  'plain ts-jest given a tagged method beside a hand-made lock under a site ending with its name: refused',
  async (t) => {
    const result = await jest('jest.misrouted.config.cjs');
    t.not(result.status, 0, result.output);
    for (const file of ['pay', 'settle', 'refund'])
      t.regex(
        result.output,
        new RegExp(
          `lockweave: jest gave \\S*lib/${file}\\.ts, which holds @redisLock tags, to a transformer other than lockweave's`,
        ),
        file,
      );
    t.notRegex(result.output, /RESULT/);
  },
);

test.serial('ts-jest with lockweave/ts-jest, cold and warm cache: each tagged method holds its key', async (t) => {
  for (const run of ['cold', 'warm']) {
    const result = await jest('jest.ts-jest.config.cjs');
    t.is(result.status, 0, `${run}: ${result.output}`);
    t.regex(result.output, /RESULT pay LOCKED/, run);
    t.regex(result.output, /RESULT settle LOCKED/, run);
    t.regex(result.output, /RESULT refund LOCKED/, run);
  }
});
