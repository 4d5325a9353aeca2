// configure() in one thread does not reach a worker thread's copy of the runtime: never configured
// there, the worker's locks would go to the default Redis under the default prefix, beside the main
// thread's on the configured server. The worker's copy is refused unless configured as the thread
// that started it was (runtime/api/runtime-copies.ts, Threads). A file of its own: it configures this
// process's runtime, and the configuration is handed to every worker started after.
import test from 'ava';
import { Worker } from 'node:worker_threads';
import { close, configure, withLock } from 'lockweave';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { uniqueId } from '../helpers/redis-fixture';

const RUNTIME = require.resolve('lockweave');
let main: RedisServer;
let other: RedisServer;

test.before(async () => {
  [main, other] = await Promise.all([startRedisServer(), startRedisServer()]);
  configure({ redis: main.url, prefix: 'PROD_' });
});
test.after.always(async () => {
  await close();
  await Promise.all([main?.stop(), other?.stop()]);
});

/** Runs one locked call in a new worker thread, configured by `configureWith` (or not), and says how it ended. */
function inWorker(configureWith: object | undefined): Promise<string> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const lockweave = require(workerData.runtime);
    if (workerData.configureWith) lockweave.configure(workerData.configureWith);
    lockweave
      .withLock({ businessFlag: 'nightly', key: workerData.key, retries: 0 }, () => 'ran')
      .then((value) => parentPort.postMessage(value), (error) => parentPort.postMessage(error.message))
      .finally(() => lockweave.close());`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, {
      eval: true,
      workerData: { runtime: RUNTIME, configureWith, key: uniqueId('day') },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

test.serial(
  'a worker thread never configured does not lock on the default beside a configured main thread',
  async (t) => {
    t.is(
      await withLock({ businessFlag: 'nightly', key: uniqueId('day') }, () => 'ran'),
      'ran',
      'the main thread locks',
    );
    const ended = await inWorker(undefined);
    t.regex(ended, /this worker thread's lockweave .* was never configured, and would lock on the default Redis/);
    t.regex(
      ended,
      /the thread that started it configured lockweave \(on 127\.0\.0\.1:\d+, database 0, prefix "PROD_"\)/,
    );
  },
);

test.serial('a worker thread configured as the main thread locks; configured otherwise, it is refused', async (t) => {
  t.is(await inWorker({ redis: main.url, prefix: 'PROD_' }), 'ran');
  const prefix = await inWorker({ redis: main.url, prefix: 'DEV_' });
  t.regex(prefix, /configured otherwise than the thread that started it: the prefix is "DEV_" here, "PROD_" there/);
  const server = await inWorker({ redis: other.url, prefix: 'PROD_' });
  t.regex(
    server,
    new RegExp(
      `the server is 127\\.0\\.0\\.1:${other.port}, database 0 here, 127\\.0\\.0\\.1:${main.port}, database 0 there`,
    ),
  );
});
