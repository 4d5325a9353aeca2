// Another process that holds a fenced lock: prints "fence <n>" once it holds the key, releases it
// when told "release" on stdin (or after 20 s), then prints "released".
const { defineLock, close } = require('lockweave');

const lock = defineLock({ site: 'foreign', businessFlag: process.argv[2], fencing: true });
(async () => {
  const lease = await lock.acquire(process.argv[3]);
  process.stdout.write(`fence ${lease.fence}\n`);
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 20_000);
    process.stdin.on('data', (data) => String(data).includes('release') && (clearTimeout(timer), resolve()));
  });
  process.stdin.destroy();
  await lease.release();
  process.stdout.write('released\n');
  await close();
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
