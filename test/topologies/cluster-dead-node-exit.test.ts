// A user's ioredis Cluster whose node is dead or silent: a locked call settles within its bound
// before the process ends, and the process then exits by itself. With the Cluster's reconnects
// turned off (or not begun: lazyConnect) nothing ref'd kept the process up while the call waited
// for the Cluster to be ready, and Node exited 0 with the call never settled — its body never ran,
// and nobody was told.
import test from 'ava';
import { join } from 'node:path';
import { closedLoopbackPort } from '../helpers/loopback';
import { startSilentServer } from '../helpers/silent-server';
import { runToExit } from '../helpers/settle-and-exit';

const PROGRAM = join(__dirname, '..', 'faults', 'programs', 'silent-redis-call.js');
/** retries × waitTime + one wait for the last answer: 300 + 300 ms; then slack for a loaded machine. */
const BOUND_MS = 600 + 4_000;

const OPTIONS = [
  { what: 'no reconnects', options: { clusterRetryStrategy: null } },
  { what: 'lazyConnect', options: { lazyConnect: true, clusterRetryStrategy: null } },
];

for (const node of ['dead', 'silent'] as const) {
  for (const { what, options } of OPTIONS) {
    test(`a user's Cluster whose node is ${node} (${what}): the call settles within its bound, then the process exits`, async (t) => {
      let port: number;
      if (node === 'silent') {
        const silent = await startSilentServer();
        t.teardown(() => silent.close());
        port = silent.port;
      } else {
        port = await closedLoopbackPort(); // nothing listens there, and no test's server can be given it
      }
      const ran = await runToExit(PROGRAM, [
        'cluster',
        JSON.stringify([{ host: '127.0.0.1', port }]),
        JSON.stringify(options),
      ]);
      t.log(`${ran.out.trim()}; exited ${ran.exitedAfterMs} ms after its start`);
      const settled = ran.out.match(/^LockAcquireError (\d+)$/m);
      t.truthy(settled, `the call settled before the process ended: ${JSON.stringify(ran.out)} ${ran.err}`);
      t.true(Number(settled?.[1]) < BOUND_MS, `rejected after ${settled?.[1]} ms`);
      t.is(ran.code, 0, ran.err);
      t.true(ran.exitedAfterMs < 30_000, `exited ${ran.exitedAfterMs} ms after its start`);
    });
  }
}
