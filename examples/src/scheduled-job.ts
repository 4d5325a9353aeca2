// One instance of a service that runs NightlyReport on a timer, as a cron would: started as several
// processes side by side, each tick's report is written by one of them only.
//
//   node examples/dist/scheduled-job.js <instance> [ticks] [intervalMs] [startAt]
//
// Ticks fall on startAt + k × intervalMs (the same wall-clock times in every process, as a cron
// expression's would), each a random 0–300 ms late: timers never fire in step across machines.
// Prints one line a tick: `tick <k>: <what run() returned>` or `tick <k>: skipped`.
import { close, configure } from 'lockweave';
import { NightlyReport } from './nightly-report';

async function main(): Promise<void> {
  const [instance = 'instance', ticksText = '3', intervalText = '3000', startText] = process.argv.slice(2);
  const ticks = Number(ticksText);
  const intervalMs = Number(intervalText);
  const startAt = startText ? Number(startText) : Date.now() + 100;
  configure({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  const report = new NightlyReport();
  let tick = 0;
  await new Promise<void>((done) => {
    const runTick = async (k: number) => {
      const written = await report.run(instance);
      console.log(`tick ${k}: ${written ?? 'skipped'}`);
      if (++tick === ticks) done();
    };
    for (let k = 0; k < ticks; k++) {
      const dueIn = startAt + k * intervalMs + Math.random() * 300 - Date.now();
      setTimeout(() => void runTick(k), Math.max(0, dueIn));
    }
  });
  await close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
