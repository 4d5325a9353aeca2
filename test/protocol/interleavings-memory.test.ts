// Many callers in several "processes" through the lock layer, on one shared MemoryLockStore, with
// fast-check's scheduler choosing the order in which the processes' commands reach the store (each
// process's own in the order it sent them, as on one connection) and which replies are lost or
// which attempts never arrive (a cut connection). The lock layer's timers are real and short
// (waitTime 20–100 ms): the scheduler orders the store, the clock runs. Checked in every schedule:
//   - never two holders of one key at once (leases are long: none lapses within a run);
//   - every caller is answered — lease or LockAcquireError — by its wait bound (plus slack);
//   - no key left behind: once all are done, no key is held and no line has a waiter.
import test from 'ava';
import fc from 'fast-check';
import { MemoryLockStore } from '../../runtime/store/memory-store';
import { modelRuns } from './commands';
import { callerArb, delay, KEYS, newStats, Run } from './callers';
import { leftBehind, NoticeHub, ProcessStore, type CommandGate } from './store-driver';

const RUNS = modelRuns(40);

type Fault = 'none' | 'lost' | 'cut';
class ReplyLost extends Error {}

const faultsArb = fc.array(fc.constantFrom<Fault>('none', 'none', 'none', 'none', 'lost', 'cut'), { minLength: 1, maxLength: 40 });

test('callers in several processes never hold a key together, keep their wait bounds, and leave no key behind (scheduled)', async (t) => {
  const stats = newStats();
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.array(callerArb, { minLength: 2, maxLength: 6 }), faultsArb, async (s, callers, faults) => {
      stats.runs++;
      const shared = new MemoryLockStore();
      const hub = new NoticeHub(shared);
      let next = 0;
      const gate: CommandGate = async (label, kind, apply) => {
        await s.schedule(Promise.resolve(label));
        stats.commands++;
        const fault = faults[next++ % faults.length];
        if (fault === 'cut' && kind === 'attempt') {
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
      const processes = [0, 1, 2].map(() => new ProcessStore(shared, hub, gate));
      const run = new Run(stats, (id) => s.schedule(Promise.resolve(`body of ${id}`)));
      let done = false;
      const all = Promise.all(callers.map((caller, id) => run.caller(processes[caller.process]!, caller, id))).finally(() => (done = true));
      // Let the scheduler pick one pending command at a time while the callers' timers run; then
      // let what the callers left running (a leave() after a give-up, a release retried) settle.
      const boundAt = Date.now() + 20_000;
      const clean = () => KEYS.every((key) => leftBehind(shared, key) === undefined);
      while ((!done || s.count() > 0 || !clean()) && Date.now() < boundAt) {
        if (s.count() > 0) await s.waitOne();
        else await delay(1);
      }
      await all;
      for (const key of KEYS) {
        const left = leftBehind(shared, key);
        if (left) run.problems.push(`left behind: ${left}`);
      }
      await shared.close();
      if (run.problems.length > 0) throw new Error(`${run.problems.join('; ')}\n${s.report().map((task) => task.label).join(', ')}`);
    }),
    { numRuns: RUNS, endOnFailure: true },
  );
  t.log(`${stats.runs} schedules: ${stats.commands} commands (${stats.faults} faults), ${stats.acquired} leases, ${stats.gaveUp} give-ups`);
  t.pass();
});
