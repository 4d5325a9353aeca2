// One process of several that lock hot keys through Redlock (configure({ redlock })), while the
// test kills, pauses and restarts some of the servers. Each section is a read-modify-write of a
// counter in a file — a store the faults cannot lose — and marks itself inside with a file made
// with O_EXCL: a section that finds the mark there overlaps another holder's. Prints "ready" once
// it has locked once, then one JSON line at the end.
// env: REDLOCK_URLS (comma-separated), DIR, FLAG, KEYS (comma-separated), CALLERS, RUN_MS,
//      RETRIES, WAIT_TIME, LOCK_TIME
const fs = require('node:fs');
const path = require('node:path');
const { configure, defineLock, close, LockAcquireError } = require('lockweave');

const env = process.env;
const keys = env.KEYS.split(',');
// Node's own promise timer: a plain program cannot load the tests' TypeScript time helper.
const { setTimeout: sleep } = require('node:timers/promises');

(async () => {
  const lost = [];
  configure({
    redlock: env.REDLOCK_URLS.split(','),
    defaults: { redlock: true },
    logger: (event) => event.type === 'lost' && lost.push({ key: event.key, t: Date.now(), why: event.error.message }),
  });
  const lock = defineLock({
    site: 'redlock-callers',
    businessFlag: env.FLAG,
    retries: Number(env.RETRIES),
    waitTime: Number(env.WAIT_TIME),
    lockTime: Number(env.LOCK_TIME),
  });
  await (await lock.acquire('warm')).release();
  process.stdout.write('ready\n');
  const stopAt = Date.now() + Number(env.RUN_MS);
  const result = {
    pid: process.pid,
    sections: Object.fromEntries(keys.map((key) => [key, 0])),
    failed: [],
    overlaps: 0,
    maxWaitMs: 0,
    acquiredAt: [],
    lost,
    otherErrors: [],
  };
  await Promise.all(
    Array.from({ length: Number(env.CALLERS) }, async (_, caller) => {
      for (let i = 0; i < 1_000_000 && Date.now() < stopAt; i++) {
        const key = keys[(caller + i) % keys.length];
        const startedAt = Date.now();
        let lease;
        try {
          lease = await lock.acquire(key);
        } catch (error) {
          if (error instanceof LockAcquireError)
            result.failed.push({ t: Date.now(), waitedMs: error.waitedMs, message: error.message.slice(0, 300) });
          else result.otherErrors.push(String(error));
          continue;
        }
        const now = Date.now();
        result.acquiredAt.push(now);
        result.maxWaitMs = Math.max(result.maxWaitMs, now - startedAt);
        try {
          const inside = path.join(env.DIR, `${key}.inside`);
          let mark;
          try {
            mark = fs.openSync(inside, 'wx');
          } catch {
            result.overlaps++;
          }
          const file = path.join(env.DIR, `${key}.count`);
          const seen = Number(fs.readFileSync(file, 'utf8'));
          await sleep(2);
          fs.writeFileSync(file, String(seen + 1));
          result.sections[key]++;
          if (mark !== undefined) {
            fs.closeSync(mark);
            fs.unlinkSync(inside);
          }
        } finally {
          await lease.release();
        }
      }
    }),
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await close();
})().catch((error) => {
  process.stderr.write(`${String(error?.stack)}\n`);
  process.exit(1);
});
