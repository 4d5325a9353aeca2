// Scenario 3, the hot key from several processes: each child runs the hot-key scenario with
// the same contender on the same lock key and counter. Children warm up alone, report ready,
// and start together on 'go'; the parent reads the counter once all have reported.
import type { Redis } from 'ioredis';
import { BenchChild } from '../child/spawn-child';
import type { ScenarioJob } from '../child/jobs';
import { processCpuMs } from '../machine';
import { hotKeyNames } from './hot-key';
import type { RunResult } from './run-result';

export async function runMultiProcess(
  job: Omit<ScenarioJob, 'kind'>,
  processes: number,
  client: Redis,
  timeoutMs: number,
): Promise<RunResult> {
  const children = Array.from(
    { length: processes },
    () => new BenchChild({ ...job, kind: 'hot-key-process' }, timeoutMs),
  );
  try {
    await Promise.all(children.map((child) => child.next('ready')));
    const redisAtStart = processCpuMs(job.redisPid);
    children.forEach((child) => child.go());
    const results = (await Promise.all(children.map((child) => child.next('result')))).map((message) => message.result);
    const redisAtEnd = redisAtStart === undefined ? undefined : processCpuMs(job.redisPid);
    const startEpochMs = Math.min(...results.map((result) => result.startEpochMs));
    const endEpochMs = Math.max(...results.map((result) => result.endEpochMs));
    return {
      sections: results.reduce((sum, result) => sum + result.sections, 0),
      failures: results.reduce((sum, result) => sum + result.failures, 0),
      cutShort: results.some((result) => result.cutShort),
      wallMs: endEpochMs - startEpochMs,
      startEpochMs,
      endEpochMs,
      latenciesMs: results.flatMap((result) => result.latenciesMs),
      counter: Number(await client.get(hotKeyNames(job.keyPrefix).counterKey)),
      cpuUs: results.every((result) => result.cpuUs !== undefined)
        ? results.reduce((sum, result) => sum + result.cpuUs!, 0)
        : undefined,
      redisCpuUs: redisAtEnd === undefined ? undefined : (redisAtEnd - redisAtStart!) * 1000,
    };
  } finally {
    children.forEach((child) => child.kill());
    await Promise.all(children.map((child) => child.finish()));
  }
}
