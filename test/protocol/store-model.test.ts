// MemoryLockStore against the protocol's model, on a clock the test steps: every answer, holder,
// TTL (to the millisecond) and line must agree after every command.
import test from 'ava';
import fc from 'fast-check';
import { modelRuns, storeCommands, World } from './commands';
import { MemoryDriver } from './store-driver';

const RUNS = modelRuns(300);

test('MemoryLockStore answers and keeps its keys as the model does', async (t) => {
  let steps = 0;
  await fc.assert(
    fc.asyncProperty(fc.commands(storeCommands, { maxCommands: 40, size: 'max' }), async (commands) => {
      const world = new World(new MemoryDriver(), 'kept-rank', '', () => 0);
      try {
        await fc.asyncModelRun(() => ({ model: {}, real: world }), commands);
      } finally {
        steps += world.steps;
        await world.driver.store.close();
      }
    }),
    { numRuns: RUNS },
  );
  t.log(`${RUNS} sequences, ${steps} commands (shrinking included)`);
  t.pass();
});
