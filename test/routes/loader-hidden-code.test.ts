// lockweave/register on Node 22 and 24, a CommonJS .ts file that Node's type stripping runs as
// written. Two ways the engine could run a tagged method the weave never saw, each refused at the
// start: an HTML-like comment (`<!--` hides the rest of its line from the engine, not from
// TypeScript, so a class TypeScript reads inside a template string is live code), and a tag name
// written with a \u escape (the compiler's tag, refused by name rather than read two ways). The same
// service without either runs and locks, so the refusal is the traps' doing.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';

const scratch = routeScratch('routes', 'loader-hidden-code');
const NODES = {
  'Node 22': path.join(ROOT, 'node_modules', 'node22', 'bin', 'node'),
  'Node 24': path.join(ROOT, 'node_modules', 'node24', 'bin', 'node'),
};
const runChild = childRunner(2);

const METHOD = [
  'class OrderService {',
  '  /** @redisLock businessFlag=payOrder keyName=orderNo */',
  '  async pay(orderNo: string): Promise<string> {',
  '    return `paid ${orderNo}`;',
  '  }',
  '}',
  'module.exports = { OrderService };',
];

const SERVICES: Record<string, string> = {
  // TypeScript: `s` is a template string holding the class. The engine: `opened <` and a comment, then the class.
  'html-open.ts': ['let opened = 0;', 'const s = opened <!--opened; `', ...METHOD, '//`;'].join('\n'),
  'html-close.ts': ['let opened = 1;', 'const s = opened', '-->0; `', ...METHOD, '//`;'].join('\n'),
  'escaped-tag.ts': METHOD.join('\n').replace('@redisLock', '@redis\\u004cock'),
  'look-alike-tag.ts': METHOD.join('\n').replace('@redisLock', '@r\u0435disLock'),
  'plain.ts': METHOD.join('\n'),
};

test.before(() => {
  fs.writeFileSync(path.join(scratch.dir, 'package.json'), '{ "type": "commonjs" }\n');
  fs.writeFileSync(path.join(scratch.dir, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }\n');
  for (const [name, text] of Object.entries(SERVICES)) fs.writeFileSync(path.join(scratch.dir, name), text);
  // A JavaScript entry: Node strips the service's types itself, and lockweave's runtime loads after it.
  fs.writeFileSync(
    path.join(scratch.dir, 'js-entry.cjs'),
    "require(`./${process.env.SERVICE}`);\nrequire('lockweave');\nsetTimeout(() => console.log('started'), 200);\n",
  );
  fs.writeFileSync(
    path.join(scratch.dir, 'app.ts'),
    [
      'const { OrderService } = require(`./${process.env.SERVICE}`);',
      "require('lockweave').configure({ redis: process.env.REDIS_URL });",
      "const locked = String(OrderService.prototype.pay).includes('.acquire(') ? 'locked' : 'unlocked';",
      "new OrderService().pay('A1').then((r: string) => { console.log('result', r, locked); return require('lockweave').close(); });",
    ].join('\n'),
  );
});

function start(binary: string, service: string) {
  return runChild(binary, ['--import', 'lockweave/register', 'app.ts'], {
    cwd: scratch.dir,
    env: { SERVICE: service, REDIS_URL: scratch.redis().url, LOCKWEAVE_CACHE_DIR: path.join(scratch.dir, 'cache') },
  });
}

for (const [nodeName, binary] of Object.entries(NODES)) {
  for (const [service, code, at] of [
    ['html-open.ts', 93031, '2:18'],
    ['html-close.ts', 93031, '3:1'],
    ['escaped-tag.ts', 93025, '2:7'],
    ['look-alike-tag.ts', 93025, '2:7'],
  ] as const) {
    test(`${nodeName}: ${service} stops the start at the trap, and no body runs`, async (t) => {
      const result = await start(binary, service);
      t.not(result.status, 0, result.output);
      t.regex(result.output, new RegExp(`${service.replace('.', '\\.')}:${at} - error TS${code}: @redisLock: `));
      t.notRegex(result.output, /result paid/);
    });
  }

  test(`${nodeName}: a JavaScript entry that runs them without lockweave/register is refused by the runtime`, async (t) => {
    for (const service of ['escaped-tag.ts', 'look-alike-tag.ts']) {
      const result = await runChild(binary, ['js-entry.cjs'], { cwd: scratch.dir, env: { SERVICE: service } });
      t.not(result.status, 0, result.output);
      t.regex(
        result.output,
        new RegExp(`lockweave: Node ran \\S*${service.replace('.', '\\.')} .*without a lockweave route`),
      );
      t.notRegex(result.output, /started/);
    }
  });

  test(`${nodeName}: the same service without a trap runs, locked`, async (t) => {
    const result = await start(binary, 'plain.ts');
    t.is(result.status, 0, result.output);
    t.regex(result.output, /result paid A1 locked/);
  });
}
