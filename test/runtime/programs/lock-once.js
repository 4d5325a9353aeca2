// Takes one lock with no configure() call — on REDIS_URL, else the default server — and prints
// what came of it as JSON: the key it holds (kept for its 30 s lease, for the test to find in
// Redis), or the error's name and message. Ends without close().
const { defineLock } = require('lockweave');

const payOrder = defineLock({ site: 'program', businessFlag: 'defaultServer', retries: 0, autoUnlock: false });
payOrder.acquire(process.argv[2]).then(
  (lease) => process.stdout.write(`${JSON.stringify({ key: lease.key })}\n`),
  (error) => process.stdout.write(`${JSON.stringify({ name: error.name, message: error.message })}\n`),
);
