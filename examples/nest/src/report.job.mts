// A cron job in a NestJS service that runs on several instances: @Cron schedules it on every
// instance, the tag lets one of them in at each tick. No keyName: one lock for the job,
// LOCK_nestReport. retries=0 onFail=skip: an instance that finds the key held does nothing at once.
// minHold=3s: the key stays 3 s after the winner took it, however soon the report is done, so
// an instance whose timer fires a little later still finds it held and skips this tick; it is free
// again before the next tick, 4 s on. lockTime=1m with the watchdog off bounds a job that hangs.
// The tag stands before the decorator: a JSDoc block after a decorator attaches to nothing (93007).
import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { instance } from './instance.mjs';

/** Every four seconds, on the second: the same wall-clock times on every instance. */
export const EVERY_FOUR_SECONDS = '*/4 * * * * *';

@Injectable()
export class ReportJob {
  /** @redisLock businessFlag=nestReport retries=0 onFail=skip minHold=3s lockTime=1m watchdog=false */
  @Cron(EVERY_FOUR_SECONDS)
  async writeReport(): Promise<void> {
    // The tick this run belongs to: timers fire a few milliseconds after the second they are due.
    const tick = Math.round(Date.now() / 4000);
    console.log(`tick ${tick}: report written by ${instance}`);
  }
}
