// One process of several whose callers lock one hot key in a loop, each section `sectionMs` long
// and each caller pausing `pauseMs` between its calls, as an application does between requests.
// The pause is what the cohort test needs: while one caller holds the key and the other pauses,
// this process has no waiter for the key at all. Each section is a read-modify-write of a counter
// that only the lock protects, so an overlap loses an update.
//
// It connects, prints `ready`, and starts its callers when its stdin gives a line: the test starts
// the processes' callers together, so none gets the key alone while the others still load.
// Prints one JSON line at the end: sections, failed calls, longest wait.
// argv: businessFlag key callers runMs sectionMs pauseMs retries waitTime counterKey
const { Redis } = require('ioredis');
const { createInterface } = require('node:readline');
const { configure, defineLock, close, LockAcquireError } = require('lockweave');
// Node's own promise timer: a plain program cannot load the tests' TypeScript time helper.
const { setTimeout: sleep } = require('node:timers/promises');

const [businessFlag, key, callers, runMs, sectionMs, pauseMs, retries, waitTime, counterKey] = process.argv.slice(2);

(async () => {
  configure({ redis: process.env.REDIS_URL });
  const counter = new Redis(process.env.REDIS_URL);
  await counter.ping();
  const lock = defineLock({
    site: 'cohort-callers',
    businessFlag,
    retries: Number(retries),
    waitTime: Number(waitTime),
  });
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  const stopAt = Date.now() + Number(runMs);
  const result = { sections: 0, failed: 0, maxWaitMs: 0, otherErrors: [] };
  await Promise.all(
    Array.from({ length: Number(callers) }, async () => {
      while (Date.now() < stopAt) {
        const startedAt = Date.now();
        let lease;
        try {
          lease = await lock.acquire(key);
        } catch (error) {
          if (error instanceof LockAcquireError) result.failed++;
          else result.otherErrors.push(String(error));
          continue;
        }
        result.maxWaitMs = Math.max(result.maxWaitMs, Date.now() - startedAt);
        try {
          const seen = Number(await counter.get(counterKey));
          await sleep(Number(sectionMs));
          await counter.set(counterKey, seen + 1);
          result.sections++;
        } finally {
          await lease.release();
        }
        await sleep(Number(pauseMs));
      }
    }),
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await close();
  counter.disconnect();
})().catch((error) => {
  process.stderr.write(`${String(error?.stack)}\n`);
  process.exit(1);
});
