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
import { giveBack, takeLease, waitBound, type CallerSettings } from './lock-driver';
import { leftBehind, NoticeHub, ProcessStore, type CommandGate } from './store-driver';

const RUNS = modelRuns(40);
/** A loaded machine's lateness past a bound: a bound, not a timing claim. */
const SLACK_MS = 1_500;
const KEYS = ['k0', 'k1'];

type Fault = 'none' | 'lost' | 'cut';
class ReplyLost extends Error {}

interface Caller extends CallerSettings {
  readonly process: number;
  readonly key: number;
  /** Scheduler turns the body takes. */
  readonly body: number;
}

const callerArb: fc.Arbitrary<Caller> = fc.record({
  process: fc.integer({ min: 0, max: 2 }),
  key: fc.integer({ min: 0, max: 1 }),
  retries: fc.integer({ min: 0, max: 4 }),
  waitTime: fc.constantFrom(20, 50, 100),
  lockTime: fc.constant(30_000),
  body: fc.integer({ min: 0, max: 3 }),
});
const faultsArb = fc.array(fc.constantFrom<Fault>('none', 'none', 'none', 'none', 'lost', 'cut'), { minLength: 1, maxLength: 40 });

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RunStats { schedules: number; commands: number; faults: number; acquired: number; gaveUp: number }

test('callers in several processes never hold a key together, keep their wait bounds, and leave no key behind (scheduled)', async (t) => {
  const stats: RunStats = { schedules: 0, commands: 0, faults: 0, acquired: 0, gaveUp: 0 };
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.array(callerArb, { minLength: 2, maxLength: 6 }), faultsArb, async (s, callers, faults) => {
      stats.schedules++;
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
      const inside = new Map<string, number>();
      const problems: string[] = [];
      const runCaller = async (caller: Caller, id: number) => {
        const key = KEYS[caller.key]!;
        const startedAt = Date.now();
        const lease = await takeLease(processes[caller.process]!, key, caller);
        const late = Date.now() - waitBound(startedAt, caller);
        if (late > SLACK_MS) problems.push(`caller ${id} was answered ${late} ms past its wait bound`);
        if (lease instanceof Error) {
          stats.gaveUp++;
          return;
        }
        stats.acquired++;
        if (inside.has(key)) problems.push(`callers ${inside.get(key)} and ${id} held ${key} together`);
        inside.set(key, id);
        for (let turn = 0; turn < caller.body; turn++) await s.schedule(Promise.resolve(`body of ${id}`));
        if (inside.get(key) !== id) problems.push(`caller ${id} lost ${key} to caller ${inside.get(key)} within its lease`);
        inside.delete(key);
        await giveBack(lease);
      };
      let done = false;
      const all = Promise.all(callers.map(runCaller)).finally(() => (done = true));
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
        if (left) problems.push(`left behind: ${left}`);
      }
      await shared.close();
      if (problems.length > 0) throw new Error(`${problems.join('; ')}\n${s.report().map((task) => task.label).join(', ')}`);
    }),
    { numRuns: RUNS, endOnFailure: true },
  );
  t.log(`${stats.schedules} schedules: ${stats.commands} commands (${stats.faults} faults), ${stats.acquired} leases, ${stats.gaveUp} give-ups`);
  t.pass();
});
