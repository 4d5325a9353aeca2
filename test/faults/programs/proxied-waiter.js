// A process that keeps waiting for a key another process holds, through a fault-injecting proxy:
// argv[2] the client (url: the runtime opens ioredis; ioredis, ioredis6: a user's ioredis 5 or 6
// client with a command timeout; redis5, redis: a user's node-redis 5 or 6 client), argv[3] the
// proxy's URL, argv[4] the businessFlag, argv[5] the key, argv[6] how long to keep at it (ms).
// Prints "waiting" once it first waits, one line per call's outcome, and "done" at the end; then
// closes what it opened and must exit by itself, code 0. Whatever the network does, it must never
// die of an unhandled rejection or an uncaught exception (the test reads stderr and the exit code).
const { close, configure, defineLock } = require('lockweave');

const [kind, url, businessFlag, key, runMs] = process.argv.slice(2);

async function connect() {
  if (kind === 'url') return { redis: url, end: async () => undefined };
  if (kind === 'ioredis' || kind === 'ioredis6') {
    const { Redis } = require(kind);
    // A command timeout of its own, which a duplicate() inherits (the release-notice subscriber).
    const client = new Redis(url, {
      commandTimeout: 1_000,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (n) => Math.min(n * 50, 250),
      maxRetriesPerRequest: 1,
    });
    client.on('error', () => undefined);
    return { redis: client, end: async () => client.disconnect() };
  }
  const { createClient } = require(kind);
  const client = createClient({ url, socket: { reconnectStrategy: (n) => Math.min(n * 50, 250) } });
  client.on('error', () => undefined);
  await client.connect();
  return { redis: client, end: async () => client.destroy() };
}

(async () => {
  const { redis, end } = await connect();
  configure({ redis });
  const lock = defineLock({ businessFlag, retries: 10, waitTime: 200 });
  const stopAt = Date.now() + Number(runMs);
  let said = false;
  for (let calls = 0; Date.now() < stopAt && calls < 1_000; calls++) {
    if (!said) process.stdout.write('waiting\n');
    said = true;
    const startedAt = Date.now();
    try {
      const lease = await lock.acquire(key);
      await lease.release();
      process.stdout.write(`got ${Date.now() - startedAt}\n`);
    } catch (error) {
      process.stdout.write(`${error.name} ${Date.now() - startedAt}\n`);
    }
  }
  process.stdout.write('closing\n');
  await close();
  await end();
  process.stdout.write('done\n');
})().catch((error) => {
  process.stderr.write(`program failed: ${error.stack}\n`);
  process.exitCode = 2;
});
