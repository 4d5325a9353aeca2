// Fault kind: the holder is paused (SIGSTOP) past its lease — a GC pause, a stopped VM, a
// laptop lid. Its watchdog is paused with it, so the key expires and another process takes it.
// When the first one resumes it must not delete the other's lock, and it must learn (and say)
// that its lock was lost.
import test from 'ava';
import { faultBench } from './support/fault-bench';
import { eventually } from '../helpers/time';
import { recordSummary } from './support/summary';
import { Worker, type WorkerMessage } from './support/workers';

const LOCK_TIME = 1_000;

interface LockEventMessage {
  type: string;
  token?: string;
  error?: { name: string; message: string };
}

const lockEvent = (message: WorkerMessage): LockEventMessage | undefined =>
  message.kind === 'lock-event' ? (message.event as LockEventMessage) : undefined;

for (const watchdog of [true, false]) {
  test(`a holder paused past its lease (lockTime ${LOCK_TIME} ms, watchdog ${watchdog ? 'on' : 'off'}) and resumed after another process took the lock: its release leaves the other's lock in place, and it reports the lock lost (LockLostError)`, async (t) => {
    const startedAt = Date.now();
    const { redis, admin, workers } = await faultBench(t);
    const key = 'order-paused';
    const common = { url: redis.url, key, lockTime: LOCK_TIME, watchdog };
    const first = Worker.start('holder-worker', { ...common, retries: 0, waitTime: 1_000, holdMs: 30_000 });
    const second = Worker.start('holder-worker', {
      ...common,
      retries: 100,
      waitTime: 200,
      holdMs: 30_000,
      waitForGo: true,
    });
    workers.push(first, second);

    const held = await first.waitForKind('acquired', 20_000);
    await second.waitForKind('ready', 20_000);
    first.signal('SIGSTOP');
    // The key can free no sooner than this: only its lease may end it.
    const pttlAt = Date.now();
    const pttl = await admin.pttl(held.key as string);
    second.send('go');

    // The paused holder cannot renew: the key expires and the second process takes it.
    const taken = await second.waitForKind('acquired', LOCK_TIME + 10_000);
    t.not(taken.token, held.token);
    // Both clocks are this machine's; a few ms for PTTL's rounding.
    t.true(
      (taken.t as number) >= pttlAt + pttl - 5,
      `the second got the key ${pttlAt + pttl - (taken.t as number)} ms before the paused holder's lease could have ended`,
    );
    t.is(await admin.get(taken.key as string), taken.token as string, 'the second holder owns the key');

    first.signal('SIGCONT');
    // Whatever runs first after the pause — the overdue watchdog renewal, or the release below —
    // must find the key no longer ours and say so.
    if (watchdog) {
      await first.waitFor((message) => lockEvent(message)?.type === 'lost', 10_000, 'lost event from the watchdog');
    }
    first.send('release');
    await first.waitForKind('done', 10_000);
    await first.waitForExit(10_000);

    const lost = first.messages.map(lockEvent).filter((event) => event?.type === 'lost');
    t.is(lost.length, 1, `the first process reports the loss exactly once: ${JSON.stringify(lost)}`);
    t.is(lost[0]?.error?.name, 'LockLostError');
    t.is(lost[0]?.token, held.token as string);
    await first.waitForKind('body-end', 1);
    t.false(
      first.messages.some((message) => lockEvent(message)?.type === 'released'),
      'the first process did not claim a release',
    );
    t.is(
      await admin.get(taken.key as string),
      taken.token as string,
      "the first holder's release left the second holder's lock in place",
    );
    t.false(
      second.messages.some((message) => lockEvent(message)?.type === 'lost'),
      'the second holder keeps its lock',
    );

    second.send('release');
    await second.waitForKind('done', 10_000);
    await second.waitForExit(10_000);
    t.true(
      await eventually(async () => (await admin.exists(taken.key as string)) === 0, {
        timeoutMs: 2_000,
        everyMs: 50,
        ignoreErrors: true,
      }),
      'the second release deletes the key',
    );

    recordSummary({
      case: t.title,
      faults: 1,
      operations: 2,
      durationMs: Date.now() - startedAt,
      notes: `second holder waited ${taken.elapsedMs as number} ms; lost reported as "${lost[0]?.error?.message ?? '-'}"`,
    });
  });
}
