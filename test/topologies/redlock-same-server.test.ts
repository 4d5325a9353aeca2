// One redis-server named under several addresses counts once towards Redlock's majority, never once
// per address: configure() cannot tell 127.0.0.1, localhost and ::1 (or a forwarded port) apart by
// their spelling, so the store asks each server which it is (its run_id) and refuses twins. Real
// redis-servers, bound to both loopbacks (IPv6's when this machine has it, else 127.0.0.2).
import test from 'ava';
import { Redis } from 'ioredis';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { close, configure, defineLock, LockAcquireError, RedisConnectionError } from 'lockweave';
import { uniqueId } from '../helpers/redis-fixture';
import { redisServerVersion, startRedisServer, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/time';

/** The third spelling of 127.0.0.1: `[::1]` when IPv6 loopback can be bound here, else `127.0.0.2`. */
let otherLoopback: { bind: string; host: string };
/** Three servers, each reachable as 127.0.0.1, localhost and the other loopback. */
let servers: RedisServer[];
let clients: Redis[];
const forwarders: Forwarder[] = [];

test.before(async (t) => {
  otherLoopback = (await canListenOn('::1'))
    ? { bind: '::1', host: '[::1]' }
    : { bind: '127.0.0.2', host: '127.0.0.2' };
  t.log(`servers: 3 × ${redisServerVersion()}, bound to 127.0.0.1 and ${otherLoopback.bind}`);
  servers = await Promise.all([0, 1, 2].map(() => startRedisServer(['--bind', '127.0.0.1', otherLoopback.bind])));
  clients = servers.map((server) => {
    const client = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    client.on('error', () => undefined);
    return client;
  });
});
test.after.always(async () => {
  await close();
  await Promise.all(forwarders.map((forwarder) => forwarder.close()));
  for (const client of clients ?? []) client.disconnect();
  await Promise.all((servers ?? []).map((server) => server.stop()));
});

const spellings = (server: RedisServer) => [
  `redis://127.0.0.1:${server.port}`,
  `redis://localhost:${server.port}`,
  `redis://${otherLoopback.host}:${server.port}`,
];
const useRedlock = (urls: string[]) =>
  configure({ redis: 'redis://127.0.0.1:1', redlock: urls, defaults: { redlock: true } });
const lockOf = (label: string, options: object = {}) => defineLock({ businessFlag: uniqueId(label), ...options });
const holders = async (key: string) =>
  (await Promise.all(clients.map((client) => client.exists(key)))).filter((held) => held === 1).length;
const twinsError =
  /server (\d) \((\S+)\) and server (\d) \((\S+)\) are the same Redis server \(run_id [0-9a-f]{8}…\): Redlock's servers must be independent/;

/** The cause of an acquire that failed: the store's fatal error, naming the two addresses of one server. */
function sameServerCause(error: LockAcquireError | undefined): RedisConnectionError {
  const cause = error?.cause;
  if (!(cause instanceof RedisConnectionError)) throw new Error(`not a RedisConnectionError: ${String(cause)}`);
  return cause;
}

test.serial(
  'one server under three addresses is accepted by configure(), then refused at the first lock; no key is set',
  async (t) => {
    const [server] = servers;
    t.notThrows(() => useRedlock(spellings(server!)));
    const L = lockOf('three-spellings', { retries: 3, waitTime: 200 });
    const startedAt = Date.now();
    const error = await t.throwsAsync(L.acquire('K'), { instanceOf: LockAcquireError });
    const cause = sameServerCause(error);
    t.log(cause.message);
    t.true(cause.fatal, 'fatal: the caller does not wait out its retries');
    t.regex(cause.message, twinsError);
    t.true(Date.now() - startedAt < 200, 'failed at once, not after a retry');
    t.is(await clients[0]!.exists(L.keyFor('K')), 0);
    // Every verb after it too: a lock on another key, and inspect.
    await t.throwsAsync(lockOf('three-spellings-again').acquire('K'), { message: twinsError });
    t.is(await clients[0]!.dbsize(), 0, 'nothing was ever set on the server');
  },
);

test.serial(
  'two addresses of one server beside a second server (3 nodes) are refused once both answered, naming the two',
  async (t) => {
    const [a, b] = servers;
    const [direct, localhost] = spellings(a!);
    useRedlock([direct!, localhost!, b!.url]);
    const L = lockOf('two-and-one', { retries: 0 });
    // The first lock waits for a majority of the nodes to say which server they are, not for all (a
    // paused one must not hold it up): `localhost`, looked up first, may answer after a lock was
    // decided on 127.0.0.1 and b — two distinct servers, each counted once. From its answer on,
    // every lock is refused.
    let refusal: RedisConnectionError | undefined;
    let granted = 0;
    for (let i = 0; refusal === undefined && i < 20; i++) {
      const lease = await L.acquire(`K${i}`).catch((error: LockAcquireError) => {
        refusal = sameServerCause(error);
        return undefined;
      });
      if (!lease) break;
      granted++;
      const heldOn = await Promise.all(clients.slice(0, 2).map((client) => client.exists(lease.key)));
      t.deepEqual(heldOn, [1, 1], 'a lock granted before the twins were known is held on a and on b');
      await lease.release();
    }
    t.log(`${granted} lock(s) granted before: ${refusal?.message}`);
    t.true(granted <= 1, 'refused by the second lock at the latest');
    t.true(refusal!.fatal);
    t.regex(
      refusal!.message,
      new RegExp(`server 0 \\(127\\.0\\.0\\.1:${a!.port}\\) and server 1 \\(localhost:${a!.port}\\) are the same`),
    );
    t.is(refusal!.address, `127.0.0.1:${a!.port},localhost:${a!.port}`);
    // Whatever was granted is undone or released (token-checked), not left to its TTL.
    await until(async () => (await clients[0]!.dbsize()) + (await clients[1]!.dbsize()) === 0, {
      what: 'no key left on a or b',
    });
    t.pass();
  },
);

test.serial('three distinct servers lock as before, and once known cost no command per lock', async (t) => {
  useRedlock(servers.map((server) => server.url));
  const L = lockOf('distinct');
  const first = await L.acquire('K0');
  t.true(first!.held);
  await first!.release();
  const infoCalls = async () =>
    Promise.all(
      clients.map(async (client) =>
        Number(/cmdstat_info:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0),
      ),
    );
  // Once known: the first lock waits for a majority of the nodes' INFO answers, and the last node's
  // may come (or be asked again) after it; measured from when each node saw only this test's INFO.
  let before = await infoCalls();
  await until(
    async () => {
      const now = await infoCalls();
      const settled = now.every((calls, index) => calls - before[index]! === 1);
      before = now;
      return settled;
    },
    { what: "every node known (no INFO but the test's own)", timeoutMs: 10_000, everyMs: 100 },
  );
  for (let i = 1; i <= 20; i++) {
    const lease = await L.acquire(`K${i}`);
    t.true(lease!.held);
    await until(async () => (await holders(lease!.key)) === 3, { what: 'the key on all three servers' });
    await lease!.release();
  }
  const after = await infoCalls();
  // Each reading is one INFO of this test's own: the runtime sent none for the 20 locks.
  t.deepEqual(
    after.map((calls, index) => calls - before[index]!),
    [1, 1, 1],
  );
});

test.serial(
  "a node down at the first lock that comes back as another's address never makes a majority with it, and is refused once known",
  async (t) => {
    const [, a, b] = servers;
    // Server 2 of the Redlock is a forwarded port to server 0 (a): down at first, then up.
    const forwarder = await reserveForwarder(a!.port);
    forwarders.push(forwarder);
    useRedlock([a!.url, b!.url, `redis://127.0.0.1:${forwarder.port}`]);
    const L = lockOf('late-twin', { retries: 0 });
    const first = await L.acquire('K0');
    t.true(first!.held, 'a majority of two distinct servers (a and b) while the third is down');
    await first!.release();
    // b goes; the forwarder comes up — and, a while, does not let its server say which it is (its
    // INFO answered with a passing error): it connects and votes, but its votes must not count.
    await b!.kill();
    forwarder.hideServer = true;
    await forwarder.listen();
    await until(() => forwarder.hidden > 0, { what: 'the runtime asking the forwarded port which server it is' });
    for (let i = 1; i <= 10; i++) {
      const key = `K${i}`;
      const error = await t.throwsAsync(L.acquire(key), { instanceOf: LockAcquireError });
      t.regex(
        (error!.cause as Error).message,
        new RegExp(`Redlock: no majority .*127\\.0\\.0\\.1:${forwarder.port}: not yet known to be a server of its own`),
      );
      // Its grants on a (granted twice: directly and through the forwarder) are undone.
      await until(async () => (await clients[1]!.exists(L.keyFor(key))) === 0, { what: `${key} undone on a` });
    }
    t.true(forwarder.hidden > 0);
    // Now it says: server 0 and server 2 are one, and every lock is refused (fatal, at once).
    forwarder.hideServer = false;
    let refusal: RedisConnectionError | undefined;
    await until(
      async () => {
        const error = await L.acquire('K').then(
          (lease) => {
            throw new Error(`a lock was granted: ${lease?.key}`);
          },
          (error: LockAcquireError) => error,
        );
        const cause = error.cause;
        if (cause instanceof RedisConnectionError && cause.fatal) refusal = cause;
        return refusal !== undefined;
      },
      { what: 'the store refusing the twins', everyMs: 50 },
    );
    t.log(refusal!.message);
    t.regex(
      refusal!.message,
      new RegExp(
        `server 0 \\(127\\.0\\.0\\.1:${a!.port}\\) and server 2 \\(127\\.0\\.0\\.1:${forwarder.port}\\) are the same Redis server`,
      ),
    );
  },
);

async function canListenOn(host: string): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, host, () => probe.close(() => resolve(true)));
  });
}

interface Forwarder {
  readonly port: number;
  /** While true, a client's `INFO server` gets an error reply (LOADING) from the server instead: it says nothing. */
  hideServer: boolean;
  /** How many `INFO server` it hid. */
  readonly hidden: number;
  /** Starts forwarding (until then the port refuses connections). */
  listen(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP forwarder to 127.0.0.1:`targetPort` on a port reserved now and listened on later. A hidden
 * INFO is rewritten, not answered here, so replies stay in the order of their commands.
 */
async function reserveForwarder(targetPort: number): Promise<Forwarder> {
  const probe = createServer();
  const port = await new Promise<number>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const sockets = new Set<Socket>();
  const info = /\*2\r\n\$4\r\ninfo\r\n\$6\r\nserver\r\n/gi;
  const script = "return redis.error_reply('LOADING the forwarder hides which server this is')";
  const refusal = `*3\r\n$4\r\nEVAL\r\n$${script.length}\r\n${script}\r\n$1\r\n0\r\n`;
  let server: Server | undefined;
  const forwarder: Forwarder & { hidden: number } = {
    port,
    hideServer: false,
    hidden: 0,
    listen: () =>
      new Promise((resolve, reject) => {
        server = createServer((client) => {
          const target = createConnection({ host: '127.0.0.1', port: targetPort });
          for (const socket of [client, target]) {
            sockets.add(socket);
            socket.on('error', () => undefined);
            socket.on('close', () => {
              sockets.delete(socket);
              client.destroy();
              target.destroy();
            });
          }
          client.on('data', (chunk: Buffer) => {
            let text = chunk.toString('latin1');
            if (forwarder.hideServer)
              text = text.replace(info, () => {
                forwarder.hidden++;
                return refusal;
              });
            target.write(Buffer.from(text, 'latin1'));
          });
          target.pipe(client);
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
  return forwarder;
}
