// A rediss:// URL for a server without TLS: the handshake is never answered. The process must get
// its LockError and then exit by itself, without close(), although ioredis keeps reconnecting.
const { configure, defineLock } = require('lockweave');

configure({ redis: process.argv[2] });
const payOrder = defineLock({ site: 'program', businessFlag: 'tlsCheck', retries: 1, waitTime: 500 });
payOrder.acquire('A').then(
  () => process.stdout.write('acquired?\n'),
  (error) => process.stdout.write(`${error.name}: ${error.message}\n`),
);
