// A worker that takes one lock and holds it until told to let go: the victim (or the
// successor) in the kill and pause cases. Its locked method carries a real redisLock JSDoc tag,
// woven by tspc (support/compile-workers.ts); lock times come through configure({ defaults }).
//
// Messages: ready, acquired {key, token, elapsedMs}, body-end, done, failed {error}, and
// lock-event for every lock event (the tests look for `waiting`, `released` and `lost`).
// Commands: `go` starts (with waitForGo), `release` ends the body, `exit` ends the process (with
// stayUntilExit).
import * as lockweave from 'lockweave/runtime';
import type { LockEvent } from 'lockweave/runtime';
import { countingLogger, describeError, exitAfter, onCommands, readConfig, send } from './protocol';

export interface HolderWorkerConfig {
  readonly url: string;
  /** The node URLs of a Redis Cluster the locks go to instead of `url` (the data stays on `url`). */
  readonly lockCluster?: readonly string[];
  readonly key: string;
  readonly lockTime: number;
  readonly retries: number;
  readonly waitTime: number;
  readonly watchdog: boolean;
  /** The body ends on `release` or after this long, whichever is first. */
  readonly holdMs: number;
  /** Start acquiring only on the `go` command (lets the test start processes early). */
  readonly waitForGo?: boolean;
  /**
   * After `done`, stay up until the `exit` command. A release Redis did not answer is retried in
   * the background, and only while the process lives: a test of that retry keeps it alive.
   */
  readonly stayUntilExit?: boolean;
}

const config = readConfig<HolderWorkerConfig>();
exitAfter(config.holdMs + config.retries * config.waitTime + 30_000);

const { logger: forward } = countingLogger(['acquired', 'waiting', 'failed', 'released', 'lost', 'error', 'renewed']);
/** The body cannot see its lease; the `acquired` event tells it the key and token it holds. */
let lastAcquired: Extract<LockEvent, { type: 'acquired' }> | undefined;
lockweave.configure({
  redis: config.lockCluster ?? config.url,
  logger: (event) => {
    if (event.type === 'acquired') lastAcquired = event;
    forward(event);
  },
  defaults: {
    lockTime: config.lockTime,
    retries: config.retries,
    waitTime: config.waitTime,
    watchdog: config.watchdog,
  },
});

let releaseBody: () => void = () => undefined;
let releaseAsked = false;
let go: () => void = () => undefined;
const started = new Promise<void>((resolve) => (go = resolve));
let exit: () => void = () => undefined;
const exitAsked = new Promise<void>((resolve) => (exit = resolve));
onCommands((command) => {
  if (command === 'go') go();
  if (command === 'exit') exit();
  if (command !== 'release') return;
  releaseAsked = true;
  releaseBody();
});

class HolderWorker {
  /** @redisLock businessFlag=faultHold keyName=key */
  async hold(key: string): Promise<void> {
    send('acquired', {
      key: lastAcquired?.key,
      token: lastAcquired?.token,
      elapsedMs: lastAcquired?.waitedMs,
      value: key,
    });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, config.holdMs);
      releaseBody = () => {
        clearTimeout(timer);
        resolve();
      };
      if (releaseAsked) releaseBody();
    });
    send('body-end');
  }
}

async function main(): Promise<void> {
  send('ready');
  if (config.waitForGo) await started;
  try {
    await new HolderWorker().hold(config.key);
    send('done');
  } catch (error) {
    send('failed', { error: describeError(error) });
  }
  if (config.stayUntilExit) await exitAsked;
  await lockweave.close();
  process.exit(0);
}

main().catch((error) => {
  send('crash', { error: describeError(error), stack: (error as Error).stack });
  process.exit(2);
});
