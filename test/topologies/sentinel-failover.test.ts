// The lock through a Sentinel failover: eight processes, three callers each, lock three hot keys
// through `configure({ redis: { sentinels, name } })` while the primary is SIGKILLed and the
// Sentinels promote the replica. Beside them, holders each mid-body on a key of its own at the
// kill, ending their bodies during the outage: their releases fail and are sent again when the
// client is back, on the new primary.
//
// What is measured is the lock, not Redis: the counters live in files (a failover with async
// replication may lose the last writes Redis acknowledged, counters included), and every section
// is recorded with its start and end, so an overlap is seen directly.
//
// What this does not show: a grant that the replica had not received when the primary died. Here
// sections last milliseconds and the failover seconds, so such a grant's section is over before
// anyone else can lock the key; a section that outlives the failover is sentinel-replicas.test.ts's.
import test from 'ava';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { redisServerVersion } from '../helpers/redis-server';
import { startSentinelTopology, type SentinelTopology } from '../helpers/redis-sentinel';
import { sleep } from '../helpers/time';

const PROCESSES = 8;
const CALLERS = 3;
const KEYS = ['hot-a', 'hot-b', 'hot-c'];
const HOLDER_FINISHES = [500, 750, 1_000, 1_250];
/** Locking goes on this long after the promotion, so every caller has locked again. */
const AFTER_PROMOTION_MS = 4_000;
/** A key held at the kill is free this soon after the promotion. */
const FREED_WITHIN_MS = 1_000;
/** Callers lock again this soon after the promotion (a bound, not a timing claim). */
const RELOCKED_WITHIN_MS = 2_000;
const PROGRAM = join(__dirname, 'programs', 'failover-callers.js');

let topology: SentinelTopology;
let dir: string;
const children: ChildProcess[] = [];

test.before(async () => {
  topology = await startSentinelTopology();
  dir = mkdtempSync(join(tmpdir(), 'lockweave-failover-'));
});

test.after.always(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await topology?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Message {
  kind: string;
  key?: string;
  token?: string;
  result?: { sections?: Array<[number, number, number]>; failed?: number[]; otherErrors?: string[]; events: unknown[] };
}

function start(args: string[]): {
  child: ChildProcess;
  messages: Message[];
  next: (kind: string, timeoutMs?: number) => Promise<Message>;
} {
  const child = fork(PROGRAM, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.push(child);
  const messages: Message[] = [];
  child.on('message', (message: Message) => messages.push(message));
  const next = (kind: string, timeoutMs = 30_000) =>
    new Promise<Message>((resolve, reject) => {
      const found = messages.find((message) => message.kind === kind);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no ${kind} from a worker within ${timeoutMs} ms`)), timeoutMs);
      child.on('message', (message: Message) => {
        if (message.kind !== kind) return;
        clearTimeout(timer);
        resolve(message);
      });
      child.once('exit', (code) => reject(new Error(`a worker exited with ${code} before ${kind}`)));
    });
  return { child, messages, next };
}

test('a Sentinel failover under contention: no lost update, no overlap, locking again after the promotion, held keys freed', async (t) => {
  t.timeout(120_000);
  t.log(`server: ${redisServerVersion()}`);
  const options = JSON.stringify(topology.sentinelOptions);
  for (const key of KEYS) writeFileSync(join(dir, key), '0');
  const workers = Array.from({ length: PROCESSES }, () =>
    start(['callers', options, KEYS.join(','), String(CALLERS), dir]),
  );
  await Promise.all(workers.map((worker) => worker.next('ready')));
  const holders = HOLDER_FINISHES.map((_, i) => start(['holder', options, `held-${i}`]));
  const held = await Promise.all(holders.map((holder) => holder.next('holding')));
  // The holders' keys must be on the replica before the kill: the promise is about keys the new
  // primary has (a grant the replica never got is sentinel-replicas.test.ts's).
  const replica = new Redis(topology.replica.url);
  try {
    for (const { key, token } of held) {
      for (let i = 0; i < 200 && (await replica.get(key!)) !== token; i++) await sleep(10);
      t.is(await replica.get(key!), token!, `${key} reached the replica`);
    }
  } finally {
    replica.disconnect();
  }
  await sleep(1_000);

  const formerPort = topology.primary.port;
  const killedAt = await topology.killPrimary();
  HOLDER_FINISHES.forEach((ms, i) => setTimeout(() => holders[i].child.send('finish'), ms));
  const promotedAt = await topology.waitForPromotion(formerPort);

  // Poll the new primary until the holders' keys no longer hold their tokens.
  const primary = new Redis(topology.primary.url);
  const freedAfter = new Map<string, number>();
  try {
    const deadline = Date.now() + 15_000;
    while (freedAfter.size < held.length && Date.now() < deadline) {
      for (const { key, token } of held) {
        if (!freedAfter.has(key!) && (await primary.get(key!)) !== token) freedAfter.set(key!, Date.now() - promotedAt);
      }
      await sleep(10);
    }
  } finally {
    primary.disconnect();
  }
  await sleep(Math.max(0, promotedAt + AFTER_PROMOTION_MS - Date.now()));

  for (const worker of [...workers, ...holders]) worker.child.send('stop');
  const results = (await Promise.all(workers.map((worker) => worker.next('result', 60_000)))).map(
    (message) => message.result!,
  );
  await Promise.all(holders.map((holder) => holder.next('result', 60_000)));

  const sections = results.flatMap((result) => result.sections!);
  const counted = KEYS.map((key) => Number(readFileSync(join(dir, key), 'utf8')));
  const perKey = KEYS.map((_, index) => sections.filter(([k]) => k === index).length);
  const overlaps = KEYS.map((_, index) => {
    const mine = sections.filter(([k]) => k === index).sort((a, b) => a[1] - b[1]);
    return mine.filter((section, i) => i > 0 && section[1] < mine[i - 1][2]).length;
  });
  const relockedAfter =
    Math.min(...sections.map(([, start]) => start).filter((start) => start > promotedAt)) - promotedAt;
  const failed = results.reduce((sum, result) => sum + result.failed!.length, 0);
  const otherErrors = results.flatMap((result) => result.otherErrors!);

  t.log(
    `kill → promotion: ${promotedAt - killedAt} ms; promotion → locking again: ${relockedAfter} ms; ` +
      `promotion → held keys freed: ${[...freedAfter.values()].join(', ')} ms`,
  );
  t.log(
    `sections per key: ${perKey.join(', ')}; counted in the files: ${counted.join(', ')}; failed acquires: ${failed}`,
  );
  t.deepEqual(counted, perKey, 'no lost update: every section that ran incremented its file once');
  t.deepEqual(overlaps, [0, 0, 0], 'no two sections of a key overlapped');
  t.deepEqual(otherErrors, []);
  t.is(failed, 0, 'with 20 s of retries, every caller got through the failover');
  // A caller whose attempt failed for want of Redis tries again when the client is back, so this is
  // the client's reconnect, not a waitTime; bounded generously for a loaded machine.
  t.true(relockedAfter <= RELOCKED_WITHIN_MS, `callers locked again ${relockedAfter} ms after the promotion`);
  t.is(freedAfter.size, held.length, 'every key held at the kill was freed');
  for (const [key, ms] of freedAfter) t.true(ms <= FREED_WITHIN_MS, `${key} freed ${ms} ms after the promotion`);
});
