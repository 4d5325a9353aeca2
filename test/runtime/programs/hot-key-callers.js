// One process of several that take turns on one hot key, locking through the Redis client family
// it is given: `ioredis` (a URL: the runtime opens the client), `redis` (node-redis v6),
// `redis5` (node-redis v5) or `glide` (Valkey GLIDE 2), connected here as a user would. Each section is a read-modify-write
// of a counter that only the lock protects: an overlap between two holders, in this process or
// across families, loses an update.
//
// It connects, prints `ready`, and starts its callers when its stdin gives a line: the test starts
// the processes' callers together. Each runs for `runMs` from then; a process that loaded quicker
// than the others (GLIDE's and node-redis's modules take their time on a loaded machine) would
// otherwise have the key alone for a while and take twice its share.
// Prints one JSON line at the end: sections, failed calls, longest wait.
// argv: family businessFlag key callers runMs retries waitTime counterKey
const { Redis } = require('ioredis');
const { createInterface } = require('node:readline');
const { configure, defineLock, close, LockAcquireError } = require('lockweave');

const [family, businessFlag, key, callers, runMs, retries, waitTime, counterKey] = process.argv.slice(2);
// Node's own promise timer: a plain program cannot load the tests' TypeScript time helper.
const { setTimeout: sleep } = require('node:timers/promises');

async function connect() {
  if (family === 'ioredis') return { redis: process.env.REDIS_URL, stop: () => undefined };
  if (family === 'glide') {
    const { GlideClient } = require('@valkey/valkey-glide');
    const { hostname, port } = new URL(process.env.REDIS_URL);
    const client = await GlideClient.createClient({ addresses: [{ host: hostname, port: Number(port) }] });
    return { redis: client, stop: () => client.close() };
  }
  const { createClient } = require(family);
  const client = createClient({ url: process.env.REDIS_URL });
  client.on('error', () => undefined);
  await client.connect();
  return { redis: client, stop: () => client.destroy() };
}

(async () => {
  const { redis, stop } = await connect();
  configure({ redis });
  const counter = new Redis(process.env.REDIS_URL);
  await counter.ping();
  const lock = defineLock({
    site: `hot-key-callers-${family}`,
    businessFlag,
    retries: Number(retries),
    waitTime: Number(waitTime),
  });
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  const stopAt = Date.now() + Number(runMs);
  const result = { family, sections: 0, failed: 0, maxWaitMs: 0, otherErrors: [] };
  await Promise.all(
    Array.from({ length: Number(callers) }, async () => {
      for (let i = 0; i < 100_000 && Date.now() < stopAt; i++) {
        const startedAt = Date.now();
        let lease;
        try {
          lease = await lock.acquire(key);
        } catch (error) {
          if (error instanceof LockAcquireError) result.failed++;
          else result.otherErrors.push(String(error));
          continue;
        }
        result.maxWaitMs = Math.max(result.maxWaitMs, Date.now() - startedAt);
        try {
          const seen = Number(await counter.get(counterKey));
          await sleep(2);
          await counter.set(counterKey, seen + 1);
          result.sections++;
        } finally {
          await lease.release();
        }
      }
    }),
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await close();
  counter.disconnect();
  stop();
})().catch((error) => {
  process.stderr.write(`${String(error?.stack)}\n`);
  process.exit(1);
});
