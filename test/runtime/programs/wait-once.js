// Another process that wants a key the test process keeps busy: prints "got" once it holds it.
const { defineLock, close } = require('lockweave');

const lock = defineLock({ site: 'foreign', businessFlag: process.argv[2], retries: 400, waitTime: 100 });
(async () => {
  process.stdout.write('waiting\n');
  const lease = await lock.acquire(process.argv[3]);
  process.stdout.write('got\n');
  await lease.release();
  await close();
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
