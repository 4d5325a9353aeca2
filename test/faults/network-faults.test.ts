// No fault of the network may end the user's process (CONTRACT §5). A process waits for a key
// through a fault-injecting proxy in front of a real redis-server, on each client family lockweave
// takes — the runtime's own ioredis (a URL), a user's ioredis 5 and 6 (with a command timeout, which
// the release-notice subscriber inherits), a user's node-redis 5 and 6 — while the proxy resets the
// connection that carries the subscriber's SUBSCRIBE, swallows the SUBSCRIBE the client sends again
// after its reconnect and resets once more, then resets everything, stalls everything and drops
// replies. The process must keep working, end its calls with an outcome (the key or
// LockAcquireError), and exit 0 — never die of an unhandled rejection or an uncaught exception.
// It used to die ~2 s after the swallowed SUBSCRIBE: ioredis re-subscribes by itself and nobody
// handled that promise, which rejected with "Command timed out".
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startFaultProxy } from '../helpers/fault-proxy';
import { useRedis } from '../helpers/redis-fixture';
import { sleep, until } from '../helpers/time';

const PROGRAM = join(__dirname, 'programs', 'proxied-waiter.js');
const RUN_MS = 9_000;

const fixture = useRedis(test);

// The five clients run at once: each has its own child process, proxy and key, and the faults are
// timed from its own subscriber's SUBSCRIBE; the test is mostly waiting (RUN_MS and the fault steps),
// so one after the other it held a test slot for five times ~10 s while the machine idled.
for (const client of ['url', 'ioredis', 'ioredis6', 'redis5', 'redis']) {
  test(`${client}: resets, stalls, lost replies and a swallowed re-SUBSCRIBE never end the waiting process`, async (t) => {
    const proxy = await startFaultProxy({ host: fixture.server.host, port: fixture.server.port });
    t.teardown(() => proxy.close());
    const businessFlag = `faults-${client}`;
    // Held by "someone else" for the whole run: the process waits, and listens for its release.
    await fixture.redis.set(`LOCK_${businessFlag}_k`, 'someone-else', 'PX', 60_000);
    const child = spawn(process.execPath, [PROGRAM, client, proxy.url, businessFlag, 'k', String(RUN_MS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    t.teardown(() => clearTimeout(killer));

    await until(async () => proxy.carrying(/^S?SUBSCRIBE$/).length > 0, 20_000);
    // The subscriber's connection is reset; the SUBSCRIBE its client sends again after the reconnect
    // is swallowed, and that connection is reset too, a while later (up to 4 times).
    proxy.swallowNext({ pattern: /^S?SUBSCRIBE$/, withinMs: 7_000, times: 4, resetAfterMs: 2_500 });
    for (const connection of proxy.carrying(/^S?SUBSCRIBE$/)) connection.reset();
    await sleep(3_000);
    proxy.resetAll();
    await sleep(500);
    for (const connection of proxy.connections()) {
      connection.stall(2_500);
      connection.dropNextReply();
    }
    await sleep(1_500);
    proxy.resetAll();

    const code = await exited;
    t.log(`swallowed ${proxy.swallowed} SUBSCRIBE(s); outcomes: ${out.trim().split('\n').slice(1, -2).join(', ')}`);
    t.true(proxy.swallowed >= 1, 'a re-SUBSCRIBE was swallowed');
    t.notRegex(err, /Unhandled|Uncaught|timed out|Error/i, 'nothing was thrown at the process');
    t.is(code, 0, err);
    t.regex(out, /^done$/m, 'the program ran to its end');
    const outcomes = out
      .trim()
      .split('\n')
      .filter((line) => !['waiting', 'closing', 'done'].includes(line));
    t.deepEqual(
      outcomes.filter((line) => !/^(got|LockAcquireError) \d+$/.test(line)),
      [],
      'every call ended with the key or LockAcquireError',
    );
  });
}
