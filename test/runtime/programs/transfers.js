// Transfers between two accounts, each holding both with withLock({ keys }), in the order the
// arguments name them: `node transfers.js <flag> <from> <to> <count>`. Each transfer checks that no
// other process is inside (a marker key per account, set NX while inside) and prints "done <n>"
// at the end, or "overlap" / "failed: …".
const { Redis } = require('ioredis');
const { withLock, close } = require('lockweave');

(async () => {
  const [flag, from, to, count] = process.argv.slice(2);
  const redis = new Redis(process.env.REDIS_URL);
  let done = 0;
  for (let i = 0; i < Number(count); i++) {
    await withLock({ businessFlag: flag, keys: [from, to], retries: 100, waitTime: 1_000 }, async () => {
      const marks = await Promise.all([from, to].map((account) => redis.set(`inside:${flag}:${account}`, '1', 'NX')));
      if (!marks.every((mark) => mark === 'OK')) process.stdout.write('overlap\n');
      await new Promise((resolve) => setTimeout(resolve, 5));
      await redis.del(`inside:${flag}:${from}`, `inside:${flag}:${to}`);
      done++;
    });
  }
  process.stdout.write(`done ${done}\n`);
  redis.disconnect();
})()
  .catch((error) => {
    process.stdout.write(`failed: ${error.message}\n`);
    process.exitCode = 1;
  })
  .finally(close);
