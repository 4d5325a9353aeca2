// lockweave/register beside a require hook of another loader (a `Module._extensions` handler, as
// pirates, esbuild-register or a hand-written hook install), before or after it, on Node 22 and 24:
// what such a handler compiles decides, not which of its reads lockweave answered. A handler that
// reads the file twice (once to hash it for its cache, once to compile), by path, Buffer or URL,
// or that compiles with esbuild, runs the woven text: the body finds its key held in Redis. One
// that also reads the file in a way lockweave does not answer and compiles that, or compiles text
// it got before the require, or throws away the text Node's loader handed it, or compiles with a
// _compile it kept from before lockweave/register loaded, is refused at the require and no body runs.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { childRunner } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES } from '../helpers/scratch-runs';

const scratch = routeScratch('routes', 'loader-require-hooks');
const NODES = { 'Node 22': NODE_LINES['Node 22'], 'Node 24': NODE_LINES['Node 24'] };
const runChild = childRunner(3);

const SERVICE = [
  "const { Redis } = require('ioredis');",
  'class OrderService {',
  '  /** @redisLock businessFlag=payOrder keyName=orderNo */',
  '  async pay(orderNo: string): Promise<string> {',
  '    const redis = new Redis(process.env.REDIS_URL!);',
  '    const held = await redis.exists(`LOCK_payOrder_${orderNo}`);',
  '    await redis.quit();',
  "    return held === 1 ? 'LOCKED' : 'UNLOCKED';",
  '  }',
  '}',
  'module.exports = { OrderService };',
].join('\n');

const MAIN = [
  "const { configure, close } = require('lockweave/runtime');",
  'configure({ redis: process.env.REDIS_URL });',
  "const { OrderService } = require('./pay.ts');",
  'const orderNo = `O-${process.pid}`;',
  "new OrderService().pay(orderNo).then((v) => { console.log('result', v); return close(); });",
].join('\n');

/** Each installs a handler for .ts files, as a loader lockweave does not know would. */
const HOOKS: Record<string, string> = {
  // Reads the file once for a cache key, once more to compile.
  'reads-twice.cjs': `const fs = require('node:fs'); const Module = require('node:module'); const crypto = require('node:crypto');
Module._extensions['.ts'] = function (mod, filename) {
  crypto.createHash('sha1').update(fs.readFileSync(filename)).digest('hex');
  mod._compile(Module.stripTypeScriptTypes(fs.readFileSync(filename, 'utf8')), filename);
};`,
  // Names the file by a Buffer, then by a file: URL.
  'reads-by-buffer-and-url.cjs': `const fs = require('node:fs'); const Module = require('node:module'); const { pathToFileURL } = require('node:url');
Module._extensions['.ts'] = function (mod, filename) {
  fs.readFileSync(Buffer.from(filename));
  mod._compile(Module.stripTypeScriptTypes(fs.readFileSync(pathToFileURL(filename), { encoding: 'utf8' })), filename);
};`,
  // Compiles with esbuild (as esbuild-register does): JavaScript quite unlike the text it read.
  'compiles-with-esbuild.cjs': `const fs = require('node:fs'); const Module = require('node:module'); const esbuild = require('esbuild');
Module._extensions['.ts'] = function (mod, filename) {
  const { code } = esbuild.transformSync(fs.readFileSync(filename, 'utf8'), { loader: 'ts', format: 'cjs', minifyWhitespace: true });
  mod._compile(code, filename);
};`,
  // Hashes what fs.readFileSync returns, compiles what a readFileSync it kept from before returns.
  'compiles-another-read.cjs': `const fs = require('node:fs'); const { readFileSync } = fs; const Module = require('node:module'); const crypto = require('node:crypto');
Module._extensions['.ts'] = function (mod, filename) {
  crypto.createHash('sha1').update(fs.readFileSync(filename)).digest('hex');
  mod._compile(Module.stripTypeScriptTypes(readFileSync(filename, 'utf8')), filename);
};`,
  // Compiled the file as it loaded (before any require), and serves that; reads the file again only to look.
  'compiles-text-from-before.cjs': `const fs = require('node:fs'); const Module = require('node:module'); const path = require('node:path');
const file = path.join(__dirname, 'pay.ts');
const early = Module.stripTypeScriptTypes(fs.readFileSync(file, 'utf8'));
Module._extensions['.ts'] = function (mod, filename) {
  fs.readFileSync(filename, 'utf8');
  mod._compile(filename === file ? early : Module.stripTypeScriptTypes(fs.readFileSync(filename, 'utf8')), filename);
};`,
  // Wraps Node's own handler (pirates' way), but compiles the file on disk instead of the code it is handed.
  'wraps-node-and-rereads.cjs': `const fs = require('node:fs'); const { readFileSync } = fs; const Module = require('node:module');
const nodes = Module._extensions['.ts'] ?? Module._extensions['.js'];
Module._extensions['.ts'] = function (mod, filename) {
  const compile = mod._compile;
  mod._compile = function (_code, _file, ...rest) {
    mod._compile = compile;
    return compile.call(this, Module.stripTypeScriptTypes(readFileSync(filename, 'utf8')), filename, ...rest);
  };
  nodes(mod, filename);
};`,
  // Keeps Module's _compile and fs.readFileSync as they were when it loaded, and compiles the file
  // on disk with them: past every wrapper lockweave/register puts on them, when it loads after it.
  'keeps-node-compile.cjs': `const fs = require('node:fs'); const { readFileSync } = fs; const Module = require('node:module');
const compile = Module.prototype._compile;
const nodes = Module._extensions['.ts'] ?? Module._extensions['.js'];
Module._extensions['.ts'] = function (mod, filename) {
  mod._compile = function (_code, _file, ...rest) {
    delete mod._compile;
    return compile.call(this, Module.stripTypeScriptTypes(readFileSync(filename, 'utf8')), filename, ...rest);
  };
  nodes(mod, filename);
};`,
};

const LOCKED = ['reads-twice.cjs', 'reads-by-buffer-and-url.cjs', 'compiles-with-esbuild.cjs'];
const REFUSED = [
  'compiles-another-read.cjs',
  'compiles-text-from-before.cjs',
  'wraps-node-and-rereads.cjs',
  'keeps-node-compile.cjs',
];

test.before(() => {
  fs.writeFileSync(path.join(scratch.dir, 'package.json'), '{ "type": "commonjs" }\n');
  fs.writeFileSync(path.join(scratch.dir, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }\n');
  fs.writeFileSync(path.join(scratch.dir, 'pay.ts'), SERVICE);
  fs.writeFileSync(path.join(scratch.dir, 'main.cjs'), MAIN);
  for (const [name, text] of Object.entries(HOOKS)) fs.writeFileSync(path.join(scratch.dir, name), text);
});

const ORDERS: Record<string, (hook: string) => string[]> = {
  'lockweave/register first': (hook) => ['--require', 'lockweave/register', '--require', `./${hook}`],
  'the hook first': (hook) => ['--require', `./${hook}`, '--require', 'lockweave/register'],
};

function start(binary: string, preloads: string[]) {
  return runChild(binary, ['--no-warnings', ...preloads, 'main.cjs'], {
    cwd: scratch.dir,
    env: { REDIS_URL: scratch.redis().url, LOCKWEAVE_CACHE_DIR: path.join(scratch.dir, 'cache') },
  });
}

for (const [nodeName, binary] of Object.entries(NODES)) {
  for (const [order, preloads] of Object.entries(ORDERS)) {
    for (const hook of LOCKED) {
      test(`${nodeName}, ${order}: a require hook that ${hook.replace(/-/g, ' ').replace('.cjs', '')} runs the woven text, its key held`, async (t) => {
        const result = await start(binary, preloads(hook));
        t.is(result.status, 0, result.output);
        t.regex(result.stdout, /^result LOCKED$/m, result.output);
      });
    }
    for (const hook of REFUSED) {
      test(`${nodeName}, ${order}: a require hook that ${hook.replace(/-/g, ' ').replace('.cjs', '')} is refused, and no body runs`, async (t) => {
        const result = await start(binary, preloads(hook));
        t.not(result.status, 0, result.output);
        t.regex(result.output, /pay\.ts holds @redisLock tags, but another loader turned it into JavaScript/);
        t.notRegex(result.stdout, /result/);
      });
    }
  }
}
