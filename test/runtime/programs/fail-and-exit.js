// Tries one lock against a Redis that is not there, reports the error, and ends without close():
// the process must still exit by itself, although ioredis keeps trying to reconnect.
const { defineLock } = require('lockweave');

const payOrder = defineLock({ site: 'program', businessFlag: 'exitCheck', retries: 0 });
payOrder.acquire('A').then(
  () => process.stdout.write('acquired?\n'),
  (error) => process.stdout.write(`${error.name}\n`),
);
