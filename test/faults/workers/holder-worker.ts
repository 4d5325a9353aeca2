// A worker that takes one lock and holds it until told to let go: the victim (or the
// successor) in the kill and pause cases. Its locked method is written exactly as the
// transformer weaves `/** @redisLock businessFlag=faultHold keyName=key ... */`.
//
// Messages: ready, acquired {token, elapsedMs}, body-end {held, aborted}, done, failed {error},
// and lock-event for every lock event (the test looks for `lost`).
// Commands: `go` starts (with waitForGo), `release` ends the body.
import * as lockweave_1 from 'lockweave/runtime';
import { countingLogger, describeError, exitAfter, onCommands, readConfig, send } from './protocol';

export interface HolderWorkerConfig {
  readonly url: string;
  readonly key: string;
  readonly lockTime: number;
  readonly retries: number;
  readonly waitTime: number;
  readonly watchdog: boolean;
  /** The body ends on `release` or after this long, whichever is first. */
  readonly holdMs: number;
  /** Start acquiring only on the `go` command (lets the test start processes early). */
  readonly waitForGo?: boolean;
}

const config = readConfig<HolderWorkerConfig>();
exitAfter(config.holdMs + config.retries * config.waitTime + 30_000);

const { logger } = countingLogger(['acquired', 'waiting', 'failed', 'released', 'lost', 'error', 'renewed']);
lockweave_1.configure({ redis: config.url, logger });

const hold_lock_1 = lockweave_1.defineLock({
  site: 'HolderWorker.hold',
  businessFlag: 'faultHold',
  lockTime: config.lockTime,
  retries: config.retries,
  waitTime: config.waitTime,
  watchdog: config.watchdog,
});

let releaseBody: () => void = () => undefined;
let releaseAsked = false;
let go: () => void = () => undefined;
const started = new Promise<void>((resolve) => (go = resolve));
onCommands((command) => {
  if (command === 'go') go();
  if (command !== 'release') return;
  releaseAsked = true;
  releaseBody();
});

class HolderWorker {
  async hold(key: string): Promise<void> {
    const startedAt = Date.now();
    const lease_1 = await hold_lock_1.acquire(key);
    lease_1!.enter();
    try {
      send('acquired', { key: hold_lock_1.keyFor(key), token: (lease_1 as lockweave_1.Lease).token, elapsedMs: Date.now() - startedAt });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, config.holdMs);
        releaseBody = () => {
          clearTimeout(timer);
          resolve();
        };
        if (releaseAsked) releaseBody();
      });
      send('body-end', { held: lease_1!.held, aborted: lease_1!.signal.aborted });
    } finally {
      await lease_1!.release();
    }
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
  await lockweave_1.close();
  process.exit(0);
}

main().catch((error) => {
  send('crash', { error: describeError(error), stack: (error as Error).stack });
  process.exit(2);
});
