// Another process that waits for a key with one scheduled attempt 100 s away: only a notice that
// the key is free brings it in sooner. Prints "waiting", then "got after <ms> ms" (or "failed: …").
const { withLock, close } = require('lockweave');

(async () => {
  const startedAt = Date.now();
  process.stdout.write('waiting\n');
  await withLock({ businessFlag: process.argv[2], key: process.argv[3], retries: 1, waitTime: 100_000 }, async () => {
    process.stdout.write(`got after ${Date.now() - startedAt} ms\n`);
  });
})()
  .catch((error) => {
    process.stdout.write(`failed: ${error.message}\n`);
    process.exitCode = 1;
  })
  .finally(close);
