// Fault kind: the holder dies (SIGKILL) in the middle of its body, so it never releases.
// Its lease is all that stands between the lock and the next caller: the key must expire on
// time, another process must then get it, and nothing must be left in Redis afterwards.
import test from 'ava';
import { faultBench } from './support/fault-bench';
import { lockLeftovers } from './support/admin';
import { eventually, sleep } from '../helpers/time';
import { recordSummary } from './support/summary';
import { Worker } from './support/workers';

const LOCK_TIME = 1_500;
const WAITER_WAIT_TIME = 300;
/** Scheduling noise on a loaded 2-core machine; an upper bound, never a tight expectation. */
const MARGIN = 3_000;
const ROUNDS = 2;

test(`a holder SIGKILLed mid-body: another process gets the lock within the lease (${LOCK_TIME} ms) + its wait (${WAITER_WAIT_TIME} ms) + ${MARGIN} ms, and no key is left behind`, async (t) => {
  const startedAt = Date.now();
  const { redis, admin, workers } = await faultBench(t);
  const handovers: number[] = [];

  for (let round = 1; round <= ROUNDS; round++) {
    const key = `order-${round}`;
    const common = { url: redis.url, key, lockTime: LOCK_TIME, watchdog: true };
    // The victim holds far longer than the test waits: only its death can free the key.
    const victim = Worker.start('holder-worker', { ...common, retries: 0, waitTime: 1_000, holdMs: 60_000 });
    workers.push(victim);
    const successor = Worker.start('holder-worker', {
      ...common,
      retries: 60,
      waitTime: WAITER_WAIT_TIME,
      holdMs: 10_000,
      waitForGo: true,
    });
    workers.push(successor);
    const held = await victim.waitForKind('acquired', 20_000);
    await successor.waitForKind('ready', 20_000);
    // The successor starts waiting while the victim is alive and renewing.
    successor.send('go');
    await successor.waitFor(
      (message) => message.kind === 'lock-event' && (message.event as { type: string }).type === 'waiting',
      20_000,
      'waiting event',
    );
    // Two leases long: without the victim's watchdog renewing it, the key would have expired by now.
    await sleep(2 * LOCK_TIME);
    t.false(
      successor.messages.some((message) => message.kind === 'acquired'),
      'nobody gets the lock while its holder lives, past its first lease',
    );
    t.is(await admin.get(held.key as string), held.token as string, 'the victim still holds the key');

    // The key can free no sooner than this: only its lease may end it.
    const pttlAt = Date.now();
    const pttl = await admin.pttl(held.key as string);
    victim.signal('SIGKILL');
    const killedAt = Date.now();
    const exit = await victim.waitForExit(5_000);
    t.is(exit.signal, 'SIGKILL');

    const taken = await successor.waitForKind('acquired', LOCK_TIME + WAITER_WAIT_TIME + MARGIN + 5_000);
    const handoverMs = (taken.t as number) - killedAt;
    handovers.push(handoverMs);
    t.true(
      handoverMs <= LOCK_TIME + WAITER_WAIT_TIME + MARGIN,
      `round ${round}: successor got the lock ${handoverMs} ms after the kill`,
    );
    t.not(taken.token, held.token, "a fresh token: the dead holder's lease ended");
    // Both clocks are this machine's; a few ms for PTTL's rounding.
    t.true(
      (taken.t as number) >= pttlAt + pttl - 5,
      `round ${round}: the successor got the key ${pttlAt + pttl - (taken.t as number)} ms before the lease could have ended`,
    );
    t.is(await admin.get(taken.key as string), taken.token as string, "the key holds the successor's token");

    successor.send('release');
    await successor.waitForKind('done', 10_000);
    await successor.waitForExit(10_000);
    t.true(
      successor.messages.some(
        (message) => message.kind === 'lock-event' && (message.event as { type: string }).type === 'released',
      ),
      'the successor released normally',
    );
  }

  const clean = await eventually(async () => (await lockLeftovers(admin)).length === 0, {
    timeoutMs: 2_000,
    everyMs: 50,
    ignoreErrors: true,
  });
  t.true(clean, `no lock key left: ${JSON.stringify(await lockLeftovers(admin))}`);

  recordSummary({
    case: t.title,
    faults: ROUNDS,
    operations: ROUNDS * 2,
    durationMs: Date.now() - startedAt,
    notes: `handover after kill: ${handovers.join(', ')} ms (lease ${LOCK_TIME} ms)`,
  });
});
