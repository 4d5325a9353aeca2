// A user of node-redis or GLIDE whose Redis goes away: locks through its own connected client
// (argv[2]: `redis`, `redis5` or `glide`), waits once for a held key (which opens lockweave's subscriber), then is
// told on stdin that Redis is down, tries a lock, prints the error, and destroys its own client —
// but never calls lockweave's close(): what lockweave opened must not keep the process alive.
const { createInterface } = require('node:readline');
const { configure, defineLock } = require('lockweave');

async function connect(family) {
  if (family === 'glide') {
    const { GlideClient } = require('@valkey/valkey-glide');
    const { hostname, port } = new URL(process.env.REDIS_URL);
    const client = await GlideClient.createClient({ addresses: [{ host: hostname, port: Number(port) }] });
    return { client, stop: () => client.close() };
  }
  const { createClient } = require(family);
  const client = createClient({ url: process.env.REDIS_URL });
  client.on('error', () => undefined);
  await client.connect();
  return { client, stop: () => client.destroy() };
}

(async () => {
  const { client, stop } = await connect(process.argv[2]);
  configure({ redis: client });
  const lock = defineLock({ site: 'program', businessFlag: 'downExit', retries: 1, waitTime: 100 });
  const held = await lock.acquire('A');
  await lock.acquire('A').catch(() => undefined); // waited, so the subscriber is open
  await held.release();
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  const bounded = defineLock({ site: 'program', businessFlag: 'downExit', retries: 5, waitTime: 200 });
  const started = Date.now();
  await bounded.acquire('B').then(
    () => process.stdout.write('acquired?\n'),
    (error) => process.stdout.write(`${error.name} after ${Date.now() - started} ms: ${error.message}\n`),
  );
  stop();
})();
