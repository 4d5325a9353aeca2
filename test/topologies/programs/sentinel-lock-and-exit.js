// Configures the runtime with ioredis Sentinel options (argv[2], JSON), takes a lock twice at
// once — so the second caller waits and opens the subscriber too — and ends without close(): the
// process must exit by itself. Prints the key, or the error's message when the lock failed.
const { configure, defineLock } = require('lockweave');
const { setTimeout: sleep } = require('node:timers/promises');

configure({ redis: JSON.parse(process.argv[2]) });
const lock = defineLock({ site: 'program', businessFlag: 'sentinelExit', retries: 2, waitTime: 500 });
(async () => {
  const first = await lock.acquire('A');
  const second = lock.acquire('A');
  await sleep(50);
  await first.release();
  await (await second).release();
  process.stdout.write(`${first.key}\n`);
})().catch((error) => process.stdout.write(`${error.message}\n`));
