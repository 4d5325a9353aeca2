// jest: a module with tagged methods that also defines a lock by hand (defineLock() is public). In
// a jest test context the runtime counts a module as woven when it defined a lock for each method
// its tags stand on, as woven code does: a hand-made lock under a site of its own proves nothing.
// A config that gives the module to plain ts-jest (outside the rootDir, where the transformers' look
// at the config does not reach) is refused before the body runs; ts-jest with lockweave/ts-jest, on
// a cold and on a warm jest cache (which compiles nothing), locks every tagged method of each shape.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { routeScratch } from '../helpers/route-scratch';
import { scratchJest } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'jest-hand-defined');
const scratch = routeScratch('routes', 'jest-hand-defined');

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

const jest = scratchJest(scratch);

test.serial(
  'lockweave/jest given the tests and plain ts-jest a tagged module that defines a lock by hand: refused, naming it',
  async (t) => {
    const result = await jest('jest.misrouted.config.cjs');
    t.not(result.status, 0, result.output);
    t.regex(
      result.output,
      /lockweave: jest gave \S*lib\/payments\.ts, which holds @redisLock tags, to a transformer other than lockweave's/,
    );
    t.notRegex(result.output, /RESULTS/);
  },
);

test.serial(
  'ts-jest with lockweave/ts-jest, cold and warm cache: every tagged method beside the hand-made lock holds its key',
  async (t) => {
    for (const run of ['cold', 'warm']) {
      const result = await jest('jest.ts-jest.config.cjs');
      t.is(result.status, 0, `${run}: ${result.output}`);
      t.regex(
        result.output,
        /RESULTS LOCKED LOCK_payOrder_O1 \| LOCKED LOCK_settleDay_D1 \| LOCKED LOCK_refundOrder_O2 \| LOCKED LOCK_closeDay_D2/,
        run,
      );
    }
  },
);

test('the sites tagged declarations stand on, read from text: modifiers, decorators, objects, functions, private and quoted names', (t) => {
  const { taggedSites } = require(
    path.join(ROOT, 'dist', 'runtime', 'base', 'tagged-sites.js'),
  ) as typeof import('../../runtime/base/tagged-sites');
  const tag = `@${'redisLock'} businessFlag=f keyName=k`;
  const text = [
    `class A {\n  /** ${tag} */\n  public static async pay(k: string) {}`,
    `  /**\n   * ${tag}\n   */\n  @Cron('0 * * * *', { name: 'x(y)' })\n  @Other()\n  async run(k: string) {}`,
    `  /** ${tag} */ async #hidden(k: string) {}`,
    `  /** ${tag} */ async 'pay-order'(k: string) {}`,
    `  /** ${tag} */ async get(k: string) {}\n}`,
    `/** ${tag} */\nexport default async function (k: string) {}`,
    `/** ${tag} */ export async function settle<T>(k: T) {}`,
    `export const refunds = {\n  /** ${tag} */ async refund(k: string) {},\n};`,
    `/** not a tag */ async function plain() {}`,
  ].join('\n');
  t.deepEqual(
    taggedSites(text).map((entry) => entry.site),
    ['A.pay', 'A.run', 'A.#hidden', 'A.pay-order', 'A.get', 'default', 'settle', 'refunds.refund'],
  );
});
