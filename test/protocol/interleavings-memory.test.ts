// Many callers in several "processes" through the lock layer, on one shared MemoryLockStore, with
// fast-check's scheduler choosing the order in which the processes' commands reach the store (each
// process's own in the order it sent them, as on one connection) and which replies are lost or
// which attempts never arrive (a cut connection). The lock layer's timers are real and short
// (waitTime 20–100 ms): the scheduler orders the store, the clock runs. Checked in every schedule:
// A process may die: its commands fail from then on, its leases lapse and claims passed to it run out.
//   - never two holders of one key within a lease (Lease.held);
//   - every caller is answered — lease or LockAcquireError — by its wait bound (plus slack);
//   - no key left behind: once all are done, no key is held and no line has a waiter.
import test from 'ava';
import fc from 'fast-check';
import { MemoryLockStore } from '../../runtime/store/memory-store';
import { modelRuns, replay } from './commands';
import { callerArb, delay, KEYS, newStats, Run } from './callers';
import { giveBack, takeLease } from './lock-driver';
import { leftBehind, NoticeHub, ProcessStore, type CommandGate } from './store-driver';

const RUNS = modelRuns(25);

/** lost: applied, reply lost; cut: a command that never arrives; dies: the process's connection is gone for good. */
type Fault = 'none' | 'lost' | 'cut' | 'dies';
class ReplyLost extends Error {}

const faultsArb = fc.array(
  fc.constantFrom<Fault>(
    'none',
    'none',
    'none',
    'none',
    'lost',
    'cut',
    'none',
    'none',
    'none',
    'none',
    'lost',
    'cut',
    'dies',
  ),
  { minLength: 1, maxLength: 40 },
);

/**
 * The faults, cycled, reach the first FAULT_WINDOW commands of a run (four times what a run sends
 * on average); then the network heals. A fault list cycled for ever could cut every command
 * one live process sends for the whole bound (a 'cut' in the list's period where that process's
 * turns fall): a connection that never delivers is a dead one, and the check would call its key —
 * held for a lease the process cannot end — left behind by a live process.
 */
const FAULT_WINDOW = 60;
/**
 * And within this long of a run's start. Sixty commands need not come quickly: a clean-up sent
 * again backs off to once a second, and a run with few callers left may take its 60 at that pace.
 * A fault list whose cuts fell on every one of a live process's leaves then cut them past the
 * run's 10 s wait (a CI run: 15 leaves, all cut; { seed: 1884587065, path: "7" }, replayed with
 * LOCKWEAVE_MODEL_SEED and LOCKWEAVE_MODEL_PATH), and the check called the key it could not clean
 * up left behind. After FAULT_WINDOW_MS the network heals, however few commands have come.
 */
const FAULT_WINDOW_MS = 3_000;

test('callers in several processes never hold a key together, keep their wait bounds, and leave no key behind (scheduled)', async (t) => {
  const stats = newStats();
  await fc.assert(
    fc.asyncProperty(
      fc.scheduler(),
      fc.array(callerArb, { minLength: 2, maxLength: 6 }),
      faultsArb,
      async (s, callers, faults) => {
        stats.runs++;
        // The store's clock runs with the real one, and jumps ahead at the end: what a dead process left must run out.
        let skewMs = 0;
        const shared = new MemoryLockStore({ now: () => Date.now() + skewMs });
        /** Which process each token's commands came from. */
        const owner = new Map<string, number>();
        /** Every command and its fault, for the report of a failure. */
        const history: string[] = [];
        const hub = new NoticeHub(shared);
        let next = 0;
        const faultsEndAt = Date.now() + FAULT_WINDOW_MS;
        const dead = new Set<number>();
        const gateOf =
          (process: number): CommandGate =>
          async (label, _kind, apply) => {
            await s.schedule(Promise.resolve(label));
            stats.commands++;
            owner.set(label.split(' ')[2]!, process);
            const fault = next < FAULT_WINDOW && Date.now() < faultsEndAt ? faults[next % faults.length]! : 'none';
            next++;
            history.push(`${label} (process ${process}): ${fault}`);
            if (fault === 'dies') dead.add(process);
            if (dead.has(process)) throw new ReplyLost(`${label}: process ${process} is gone`);
            if (fault === 'cut') {
              stats.faults++;
              throw new ReplyLost(`${label}: the connection was cut before it arrived`);
            }
            const reply = await apply();
            if (fault === 'lost') {
              stats.faults++;
              throw new ReplyLost(`${label}: applied, its reply lost`);
            }
            return reply;
          };
        const processes = [0, 1, 2].map((process) => new ProcessStore(shared, hub, gateOf(process)));
        const run = new Run(stats, (id) => s.schedule(Promise.resolve(`body of ${id}`)));
        let done = false;
        const all = Promise.all(
          callers.map((caller, id) => run.caller(processes[caller.process]!, caller, id)),
        ).finally(() => (done = true));
        // Let the scheduler pick one pending command at a time while the callers' timers run; then
        // let what the callers left running (a leave() after a give-up, a release retried) settle.
        // What a live process left is a key left behind; a dead process's grants, places and claims
        // must run out by themselves (its leases lapse, a claim lasts CLAIM_MS).
        const leftByLive = () =>
          KEYS.flatMap((key) =>
            leftBehind(shared, key)
              .filter((token) => !dead.has(owner.get(token)!))
              .map((token) => `${key}: ${token}`),
          );
        const boundAt = Date.now() + 10_000;
        while ((!done || s.count() > 0 || leftByLive().length > 0) && Date.now() < boundAt) {
          if (s.count() > 0) await s.waitOne();
          else await delay(1);
        }
        await all;
        for (const left of leftByLive()) {
          const token = left.split(' ')[1]!;
          run.problems.push(
            `left behind by a live process: ${left}; its commands: ${history.filter((line) => line.includes(token)).join('; ')}`,
          );
        }
        skewMs = 120_000;
        for (const key of KEYS) {
          const left = leftBehind(shared, key);
          if (left.length > 0) run.problems.push(`never runs out: ${key}: ${left.join(', ')}`);
        }
        await shared.close();
        if (run.problems.length > 0) t.log(run.problems);
        if (run.problems.length > 0)
          throw new Error(
            `${run.problems.join('; ')}\n${s
              .report()
              .map((task) => task.label)
              .join(', ')}`,
          );
      },
    ),
    { numRuns: RUNS, endOnFailure: true, ...replay() },
  );
  t.log(
    `${stats.runs} schedules: ${stats.commands} commands (${stats.faults} faults), ${stats.acquired} leases, ${stats.gaveUp} give-ups`,
  );
  t.pass();
});

/**
 * FOUND and fixed (issue 16, the real-Redis interleavings: { seed: -1219588783, path: "78" } at run 78
 * of 200, a stall then resets): a waiter with a short lease (300 ms) took over the grant of a holder
 * with a long one (30 s); its takeOver() was cut, so the key kept the holder's 30 s; its release was
 * cut too, and the release's retries stopped at the *taken-over lease's* expiry (min(grant's expiry,
 * own lease): right for `held`), though the key lived on the former holder's TTL. A lease now keeps,
 * beside that expiry, the latest the key may last (lock/lease.ts, mayLastUntil), and retries its
 * release until then. Since then a take-over sends nothing (its first renewal is the take-over
 * script), and a waiter whose lease is shorter than the grant may last gets a hand-over instead
 * (lock/succession.ts, mayTakeOver): here the waiter asks the holder's lease, and its releases are cut.
 */
test('a release retried after cuts lasts as long as the key may (a grant taken over)', async (t) => {
  const shared = new MemoryLockStore();
  const cuts = new Map([['release', 3]]);
  const store = new ProcessStore(shared, new NoticeHub(shared), async (label, _kind, apply) => {
    const verb = label.split(' ')[0]!;
    const left = cuts.get(verb) ?? 0;
    if (left > 0) {
      cuts.set(verb, left - 1);
      throw new ReplyLost(`${label}: cut`);
    }
    return apply();
  });
  const holder = await takeLease(store, 'k0', { retries: 0, waitTime: 50, lockTime: 30_000 });
  if (holder instanceof Error) throw holder;
  const taking = takeLease(store, 'k0', { retries: 20, waitTime: 100, lockTime: 30_000 });
  const boundAt = Date.now() + 2_000;
  while (shared.waiting('k0').length === 0 && Date.now() < boundAt) await delay(5);
  await giveBack(holder);
  const successor = await taking;
  if (successor instanceof Error) throw successor;
  t.is(successor.token, holder.token, 'the waiter took the grant over');
  await giveBack(successor);
  const cleanBy = Date.now() + 1_500;
  while (leftBehind(shared, 'k0').length > 0 && Date.now() < cleanBy) await delay(10);
  t.deepEqual(leftBehind(shared, 'k0'), [], 'the key is held by a holder that is done');
  await shared.close();
});

/**
 * A holder (3 s lease) whose watchdog renewal is on its way, held back 1.5 s, and a waiter of the
 * same process asking `waiterLockTime`, whose next attempt is only due at 3 s (none is on its way,
 * queued behind the renewal, when the holder is done). The holder gives its lease back while the
 * renewal is out; `releasesCut` of the process's releases are cut.
 */
async function handOnWhileRenewing(waiterLockTime: number, releasesCut: number) {
  const shared = new MemoryLockStore();
  let renewalOut = false;
  const store = new ProcessStore(shared, new NoticeHub(shared), async (label, _kind, apply) => {
    const verb = label.split(' ')[0]!;
    if (verb === 'renew' && !renewalOut) {
      renewalOut = true;
      await delay(1_500);
    }
    if (verb === 'release' && releasesCut > 0) {
      releasesCut--;
      throw new ReplyLost(`${label}: cut`);
    }
    return apply();
  });
  const startedAt = Date.now();
  const holder = await takeLease(store, 'k0', { retries: 0, waitTime: 50, lockTime: 3_000 });
  if (holder instanceof Error) throw holder;
  const taking = takeLease(store, 'k0', { retries: 2, waitTime: 3_000, lockTime: waiterLockTime });
  // The watchdog's first renewal goes at a third of the lease.
  const boundAt = Date.now() + 5_000;
  while (!renewalOut && Date.now() < boundAt) await delay(5);
  if (!renewalOut) throw new Error('the renewal was never sent');
  await giveBack(holder);
  const successor = await taking;
  if (successor instanceof Error) throw successor;
  return { shared, startedAt, holder, successor };
}

/**
 * FOUND and fixed (the take-over that sends nothing): a waiter that took a grant over while its
 * holder's renewal was still on its way copied the holder's "latest the key may last" as it stood —
 * the renewal, answered later, raised only the former holder's. When the waiter's release then went
 * unanswered, its retries stopped at that old bound, though the renewal had made the key last a
 * lease from its landing: the key stayed held by a caller that was done until its TTL. The leases of
 * one grant now share that bound (lock/succession.ts, SharedGrant). Here the waiter's first three
 * releases are cut; the key must be free long before its TTL.
 */
test('a release retried after a take-over counts the holder renewal that was on its way', async (t) => {
  const { shared, startedAt, holder, successor } = await handOnWhileRenewing(3_000, 3);
  t.is(successor.token, holder.token, 'the waiter took the grant over');
  await giveBack(successor);
  // The renewal lands at about 2.5 s and makes the key last until about 5.5 s; the old bound was 3 s.
  const cleanBy = startedAt + 5_000;
  while (leftBehind(shared, 'k0').length > 0 && Date.now() < cleanBy) await delay(20);
  t.deepEqual(leftBehind(shared, 'k0'), [], 'the key is held by a holder that is done');
  await shared.close();
});

/**
 * The same renewal on its way makes the key last the holder's 3 s from its landing: a waiter asking
 * 2.5 s gets a hand-over, not the grant (a dead waiter never holds the key up longer than its own
 * lease) — though without the renewal the key would last only the 2 s left of the holder's lease.
 */
test('a waiter asking a shorter lease than a renewal on its way gets a hand-over', async (t) => {
  const { shared, holder, successor } = await handOnWhileRenewing(2_500, 0);
  t.not(successor.token, holder.token, "the key was handed over under the waiter's own token");
  await giveBack(successor);
  await shared.close();
});
