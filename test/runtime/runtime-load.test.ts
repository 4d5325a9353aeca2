// What the runtime's own load requires. Every process with a tagged method loads the runtime at its
// start; the modules a lock needs only once it locks (the Redis client libraries, uuid and
// node:crypto behind the tokens) are required at the first lock, so a start does not pay for them
// (bench/history.md: ~10 ms of a start). A module-level import of one of them, anywhere the
// runtime's entry reaches, would quietly put that cost back.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const RUNTIME = path.join(ROOT, 'dist', 'runtime', 'index.js');
const AT_FIRST_LOCK = ['node:crypto', 'crypto', 'uuid', 'ioredis', 'redis', '@redis/client', '@valkey/valkey-glide'];

/** The ids required (through Module._load) while the runtime's entry loads, in a fresh process. */
function requiredAtLoad(): string[] {
  const script = `
    const Module = require('node:module');
    const load = Module._load;
    const seen = [];
    Module._load = function (request) { seen.push(request); return load.apply(this, arguments); };
    require(${JSON.stringify(RUNTIME)});
    process.stdout.write(JSON.stringify(seen));`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`the runtime did not load: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

test("the runtime's load requires no Redis client, no uuid and no node:crypto: a lock requires them when it first needs them", (t) => {
  const required = requiredAtLoad();
  t.true(required.length > 0, 'the interception saw the runtime load');
  t.deepEqual(
    required.filter((id) => AT_FIRST_LOCK.includes(id)),
    [],
    `required at load: ${required.join(', ')}`,
  );
});
