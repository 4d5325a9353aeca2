// A bench child: runs one job the parent sends over IPC, reports, and exits.
// For the multi-process scenario it warms up, says 'ready', and starts only on 'go', so all
// processes begin together.
import { Redis } from 'ioredis';
import { CONTENDERS } from '../contenders';
import { processCpuMs } from '../machine';
import { runUncontended } from '../scenarios/uncontended';
import { runHotKey } from '../scenarios/hot-key';
import { runSuccession } from '../scenarios/succession';
import type { RunResult } from '../scenarios/run-result';
import { runWeaveOverhead } from '../weave/run-overhead';
import type { ChildMessage, ParentMessage, ScenarioJob } from './jobs';

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send!(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
}

function nextGo(): Promise<void> {
  return new Promise((resolve) => {
    const listener = (message: ParentMessage) => {
      if (message.type !== 'go') return;
      process.off('message', listener);
      resolve();
    };
    process.on('message', listener);
  });
}

/** The most sections a caller runs to warm up, whatever the time allows. */
const WARM_UP_MOST_SECTIONS = 100_000;

async function runScenario(job: ScenarioJob): Promise<RunResult> {
  // Set as lockweave's README asks of a client passed in (else the runtime warns once per process);
  // the floor and the peers share it, and none of them depends on ioredis re-sending commands.
  const client = new Redis(job.redisUrl, { maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false });
  const contender = CONTENDERS[job.contender]();
  await contender.setup(client);
  try {
    const run = (keyPrefix: string, iterations: number, deadlineMs = job.deadlineMs) => {
      const options = { callers: job.callers, iterations, deadlineMs, keyPrefix };
      switch (job.kind) {
        case 'uncontended':
          return runUncontended(contender, options);
        case 'succession':
          return runSuccession(contender, options);
        case 'hot-key':
        case 'hot-key-process':
          return runHotKey(contender, client, options);
      }
    };
    // Warm up on keys of our own (a process of the multi-process run warms up alone), for a time:
    // the run's deadline ends it, the count only bounds it.
    await run(`${job.keyPrefix}:warm:${process.pid}`, WARM_UP_MOST_SECTIONS, job.warmupMs);
    if (job.kind === 'hot-key-process') {
      const go = nextGo();
      await send({ type: 'ready' });
      await go;
    }
    // Over the measured part alone: the process's whole CPU (the lock's code, the client's, the
    // GC's), and the redis-server's. A process of the multi-process run reports its own; the
    // parent reads the server's over all of them (multi-process.ts).
    const cpuAtStart = process.cpuUsage();
    const redisAtStart = job.kind === 'hot-key-process' ? undefined : processCpuMs(job.redisPid);
    const result = await run(job.keyPrefix, job.iterations);
    const redisAtEnd = redisAtStart === undefined ? undefined : processCpuMs(job.redisPid);
    const cpu = process.cpuUsage(cpuAtStart);
    return {
      ...result,
      cpuUs: cpu.user + cpu.system,
      redisCpuUs: redisAtEnd === undefined ? undefined : (redisAtEnd - redisAtStart!) * 1000,
    };
  } finally {
    await contender.teardown();
    await client.quit().catch(() => client.disconnect());
  }
}

process.once('message', async (message: ParentMessage) => {
  if (message.type !== 'run') return;
  const { job } = message;
  try {
    if (job.kind === 'describe') {
      const contenders = Object.entries(CONTENDERS).map(([id, create]) => {
        const { name, settings } = create();
        return { id, name, settings };
      });
      await send({ type: 'described', contenders });
    } else if (job.kind === 'weave-overhead') {
      await send({ type: 'overhead', result: await runWeaveOverhead(job) });
    } else {
      await send({ type: 'result', result: await runScenario(job) });
    }
  } catch (error) {
    await send({ type: 'error', message: (error as Error).stack ?? String(error) });
  }
  process.disconnect();
});
