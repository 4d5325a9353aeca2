// One process of several that hammer one hot key: `callers` loops take the lock, hold it for a
// few milliseconds, and go again, until `runMs` is over. Prints one JSON line: how many sections
// each caller got, how many calls failed, and the longest any call waited for the lock.
// argv: businessFlag key callers runMs retries waitTime
const { defineLock, close, LockAcquireError } = require('lockweave');

const [businessFlag, key, callers, runMs, retries, waitTime] = process.argv.slice(2);
const lock = defineLock({ site: 'hot-key-callers', businessFlag, retries: Number(retries), waitTime: Number(waitTime) });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

(async () => {
  const stopAt = Date.now() + Number(runMs);
  const result = { sections: 0, failed: 0, maxWaitMs: 0, otherErrors: [] };
  await Promise.all(
    Array.from({ length: Number(callers) }, async () => {
      // Bounded in time and count.
      for (let i = 0; i < 100_000 && Date.now() < stopAt; i++) {
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
          await sleep(2);
          result.sections++;
        } finally {
          await lease.release();
        }
      }
    }),
  );
  process.stdout.write(JSON.stringify(result) + '\n');
  await close();
})().catch((error) => {
  process.stderr.write(String(error && error.stack) + '\n');
  process.exit(1);
});
