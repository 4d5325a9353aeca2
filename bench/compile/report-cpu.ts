// Preloaded (`node -r`) into each timed tspc: prints the process's CPU time (user + system, all
// its threads) as it exits. On a shared machine wall time swings with other people's work far
// more than CPU time does, so the bench reports both.
import { CPU_MARK } from './cpu-mark';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\n${CPU_MARK}${user + system}\n`);
});
