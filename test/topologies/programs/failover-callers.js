// One process of several that lock a few hot keys through a Sentinel topology while its primary
// is killed (sentinel-failover.test.ts). Each section is a read-modify-write of a counter kept in
// a file — a store the failover cannot lose, so a lost update is the lock's doing — and is
// recorded as [key index, start, end] (Date.now(), one clock for every process on the machine).
// Driven over IPC: `ready` after its first section, its result on `stop`.
//   role `callers`: argv options keys callers counterDir — callers loop over the keys.
//   role `holder`:  argv options key — takes its key, reports `holding`, releases on `finish`.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { configure, defineLock, close, LockAcquireError } = require('lockweave');

const [role, options, ...rest] = process.argv.slice(2);
// Node's own promise timer: a plain program cannot load the tests' TypeScript time helper.
const { setTimeout: sleep } = require('node:timers/promises');
const events = [];
configure({
  redis: JSON.parse(options),
  logger: (event) =>
    (event.type === 'error' || event.type === 'lost') &&
    events.push({ type: event.type, during: event.during, key: event.key, t: Date.now() }),
});
const lock = defineLock({
  site: `failover-${role}`,
  businessFlag: 'failover',
  lockTime: 10_000,
  retries: 20,
  waitTime: 1_000,
});
let stopping = false;
const stopped = new Promise((resolve) => process.on('message', (message) => message === 'stop' && resolve()));
stopped.then(() => (stopping = true));

async function callers([keys, callers, counterDir]) {
  const names = keys.split(',');
  const result = { sections: [], failed: [], otherErrors: [] };
  let ready = false;
  await Promise.all(
    Array.from({ length: Number(callers) }, async (_, caller) => {
      for (let i = 0; i < 1_000_000 && !stopping; i++) {
        const index = (caller + i) % names.length;
        let lease;
        try {
          lease = await lock.acquire(names[index]);
        } catch (error) {
          if (error instanceof LockAcquireError) result.failed.push(Date.now());
          else result.otherErrors.push(String(error));
          continue;
        }
        try {
          const start = Date.now();
          const file = join(counterDir, names[index]);
          const seen = Number(readFileSync(file, 'utf8') || 0);
          await sleep(2);
          writeFileSync(file, String(seen + 1));
          result.sections.push([index, start, Date.now()]);
        } finally {
          await lease.release();
        }
        if (!ready) {
          ready = true;
          process.send({ kind: 'ready' });
        }
      }
    }),
  );
  return result;
}

async function holder([key]) {
  const lease = await lock.acquire(key);
  const finish = new Promise((resolve) => process.on('message', (message) => message === 'finish' && resolve()));
  process.send({ kind: 'holding', key: lease.key, token: lease.token });
  await finish;
  const releasedAt = Date.now();
  await lease.release();
  await stopped; // the release is sent again in the background: stay up until the test is done
  return { releasedAt };
}

(async () => {
  const result = await (role === 'holder' ? holder(rest) : callers(rest));
  await stopped;
  process.send({ kind: 'result', result: { ...result, events } });
  await close();
  process.disconnect();
})().catch((error) => {
  process.stderr.write(`${String(error?.stack)}\n`);
  process.exit(1);
});
