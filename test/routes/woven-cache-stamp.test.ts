// The woven-file cache keys its entries by the weaver that wove them, and a weaver is more than
// lockweave's version: a second build of the same version (from git, a `file:` dependency) whose
// runtime base differs — here the factor of `s` in a duration — must weave afresh, although npm
// gives every installed file one fixed time and the changed file kept its size. So must a copy
// edited after its install (patch-package), which writes no new build hash. Each start runs a
// tagged method with lockTime=20s under lockweave/register on Node 24, against a real redis-server,
// and reads its key's lease: what the weaver of that start makes of `20s`, never a stale entry's.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installedCopy, ROOT } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';

const scratch = routeScratch('routes', 'woven-cache-stamp');
const NODE = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const runChild = childRunner(1);
const APP = path.join(scratch.dir, 'app');
const PACKAGE = path.join(APP, 'node_modules', 'lockweave');
const CACHE = path.join(scratch.dir, 'cache');
/** The time npm gives every file it installs (1985-10-26T08:15:00Z). */
const NPM_TIME = new Date('1985-10-26T08:15:00Z');
const DURATIONS = path.join(PACKAGE, 'dist', 'runtime', 'base', 'option-kinds.js');

const SERVICE = [
  "const { Redis } = require('ioredis');",
  'class OrderService {',
  '  /** @redisLock businessFlag=payOrder keyName=orderNo lockTime=20s watchdog=false */',
  '  async pay(orderNo: string): Promise<number> {',
  '    const redis = new Redis(process.env.REDIS_URL!);',
  '    const lease = await redis.pttl(`LOCK_payOrder_${orderNo}`);',
  '    await redis.quit();',
  '    return lease;',
  '  }',
  '}',
  'module.exports = { OrderService };',
].join('\n');

const MAIN = [
  "const { configure, close } = require('lockweave/runtime');",
  'configure({ redis: process.env.REDIS_URL });',
  "const { OrderService } = require('./pay.ts');",
  "new OrderService().pay(`O-${process.pid}`).then((lease) => { console.log('lease', lease); return close(); });",
].join('\n');

test.before(() => {
  fs.mkdirSync(APP, { recursive: true });
  fs.writeFileSync(path.join(APP, 'package.json'), '{ "type": "commonjs" }\n');
  fs.writeFileSync(path.join(APP, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }\n');
  fs.writeFileSync(path.join(APP, 'pay.ts'), SERVICE);
  fs.writeFileSync(path.join(APP, 'main.cjs'), MAIN);
  // lockweave installed as npm leaves a package: its package.json and dist, every file at one time.
  installedCopy(PACKAGE);
  installedTimes(PACKAGE);
});

function installedTimes(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) installedTimes(file);
    fs.utimesSync(file, NPM_TIME, NPM_TIME);
  }
}

/** A cache entry as the file system has it: a rewrite, even of the same text, changes its mtime or inode. */
interface Entry {
  readonly name: string;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The lease the tagged method found on its key, and the entries the cache holds after the start. */
async function start(t: import('ava').ExecutionContext): Promise<{ lease: number; entries: Entry[] }> {
  const result = await runChild(NODE, ['--require', 'lockweave/register', 'main.cjs'], {
    cwd: APP,
    env: { REDIS_URL: scratch.redis().url, LOCKWEAVE_CACHE_DIR: CACHE },
  });
  t.is(result.status, 0, result.output);
  const lease = Number(/^lease (-?\d+)$/m.exec(result.stdout)?.[1]);
  const entries = fs
    .readdirSync(CACHE)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const { ino, size, mtimeMs } = fs.statSync(path.join(CACHE, name));
      return { name, ino, size, mtimeMs };
    });
  return { lease, entries };
}

/** Rewrites `s`'s factor in the copy's durations (same size), at the install's time or now. */
function secondsAre(factor: string, time: Date): void {
  const text = fs.readFileSync(DURATIONS, 'utf8');
  const changed = text.replace(/\bs: \d{4}\b/, `s: ${factor}`);
  if (changed === text || changed.length !== text.length) throw new Error('option-kinds.js: the factor of s not found');
  fs.writeFileSync(DURATIONS, changed);
  fs.utimesSync(DURATIONS, time, time);
}

test.serial(
  'an entry woven by one build is not served to another of the same version, nor to a copy patched after its install',
  async (t) => {
    const first = await start(t);
    t.true(first.lease > 0 && first.lease <= 20_000, `lease ${first.lease}`);
    t.is(first.entries.length, 1, 'one entry for the tagged file');
    // The same build again: served from the cache. A hit writes nothing: the entry is the same file
    // (inode), unchanged (size, mtime) — a rewrite of the same text, in place or renamed over it, is not.
    const again = await start(t);
    t.deepEqual(again.entries, first.entries, 'the entry was not written again');
    t.true(again.lease > 0 && again.lease <= 20_000, `lease ${again.lease}`);

    // Another build of the same version: a runtime base file whose text differs, same size, npm's time;
    // its build wrote its own hash.
    secondsAre('2000', NPM_TIME);
    const hashed = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'write-weaver-hash.js'), PACKAGE], {
      encoding: 'utf8',
    });
    t.is(hashed.status, 0, hashed.stderr);
    installedTimes(PACKAGE);
    const rebuilt = await start(t);
    t.true(rebuilt.lease > 20_000 && rebuilt.lease <= 40_000, `lease ${rebuilt.lease}: woven by this build`);
    t.is(rebuilt.entries.length, 2, 'woven again, under a key of its own');

    // patch-package: the installed file edited in place (now), no new build hash.
    secondsAre('3000', new Date());
    const patched = await start(t);
    t.true(patched.lease > 40_000 && patched.lease <= 60_000, `lease ${patched.lease}: woven by the patched copy`);
    t.is(patched.entries.length, 3);
  },
);
