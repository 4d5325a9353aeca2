// A scheduled job that must run on one instance only: every instance's timer calls run() at each
// tick, and the tag lets one of them in. No keyName: the lock is the business's one key,
// LOCK_nightlyReport. retries=0 onFail=skip: an instance that finds the key held resolves undefined
// at once and does nothing (with retries it would wait, and run the job again after the winner).
// minHold=2500ms: the key stays 2.5 s after the winner took it, however soon the report is done,
// so an instance whose timer fires a little later (clocks and event loops are never in step)
// still finds the key held and skips this tick. lockTime=1m with the watchdog off bounds a job that
// hangs: another instance may take over after a minute (ShedLock's lockAtMostFor).
// (Any scheduler works the same way: a NestJS @Cron method takes the same tag.)
export class NightlyReport {
  /** @redisLock businessFlag=nightlyReport retries=0 onFail=skip minHold=2500ms lockTime=1m watchdog=false */
  async run(instance: string): Promise<string | undefined> {
    return `report written by ${instance}`;
  }
}
