// Takes a lock through the lazy default connection (REDIS_URL) and ends without close():
// the process must exit by itself once its work is done.
const { defineLock } = require('lockweave');

const payOrder = defineLock({ site: 'program', businessFlag: 'exitCheck' });
(async () => {
  const lease = await payOrder.acquire(process.argv[2]);
  process.stdout.write(`${lease.key}\n`);
  await lease.release();
})();
