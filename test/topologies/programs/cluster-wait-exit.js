// Another process that waits for a key the test process holds, on the Redis Cluster whose node
// URLs are in CLUSTER_URLS, and ends without close(): it must exit by itself. Its wait is long
// (waitTime 10 s unless argv[4] says), so only a sharded release notice wakes it soon. Prints "waiting", then "got <ms>".
const { configure, defineLock } = require('lockweave');

configure({ redis: JSON.parse(process.env.CLUSTER_URLS) });
const lock = defineLock({ businessFlag: process.argv[2], retries: 3, waitTime: Number(process.argv[4] ?? 10_000) });
(async () => {
  process.stdout.write('waiting\n');
  const lease = await lock.acquire(process.argv[3]);
  await lease.release();
  process.stdout.write(`got ${Date.now()}\n`);
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
