// Split brain: what fencing catches that a plain lock cannot.
//
// A primary grants a key; its replica misses the grant (stopped, and its link cut, so the write
// never reaches it); the primary dies; the replica is forced to take over (REPLICAOF NO ONE) and
// grants the same key to a second caller while the first still holds it, as far as it knows. Both
// bodies run — no lock on one replicated primary can prevent that. But the second grant's fence is
// larger, although the new primary's counter missed the first grant's increment (a number is never
// below the server's clock in µs), so the storage refuses the first holder's late, stale write.
import test from 'ava';
import { Redis } from 'ioredis';
import { close, configure, currentLock, defineLock } from 'lockweave';
import { FencedStock } from '../../examples/src/fenced-stock';
import { startReplicaOf } from '../helpers/primary-replica';
import { redisServerVersion, startRedisServer, type RedisServer } from '../helpers/redis-server';
import { fenceCounterOf } from '../../runtime/store/waiting-line';

const servers: RedisServer[] = [];
const clients: Redis[] = [];
let replicaStopped: number | undefined;

test.after.always(async () => {
  if (replicaStopped !== undefined) process.kill(replicaStopped, 'SIGCONT');
  await close();
  for (const client of clients) client.disconnect();
  for (const server of servers) await server.stop();
});

function client(server: RedisServer): Redis {
  const made = new Redis(server.url, { maxRetriesPerRequest: 1 });
  made.on('error', () => undefined); // the primary is killed on purpose
  clients.push(made);
  return made;
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

test("after a forced takeover two bodies hold one key; the storage refuses the stale holder's write by its fence", async (t) => {
  t.log(`server: ${redisServerVersion()}`);
  const database = await startRedisServer(); // the storage the bodies write to: not part of the failover
  servers.push(database);
  const primary = await startRedisServer();
  servers.push(primary);
  const replica = await startReplicaOf(primary);
  servers.push(replica);
  const db = client(database);
  const stock = new FencedStock(db);
  const onPrimary = client(primary);
  const onReplica = client(replica);

  configure({ redis: primary.url });
  const restock = defineLock({ businessFlag: 'restock', fencing: true, lockTime: 30_000, retries: 0 });
  const key = restock.keyFor('sku-1');
  const counter = fenceCounterOf(key);

  // An earlier grant the replica did see: its counter is where the primary's was.
  const earlier = (await restock.run('sku-1', async () => currentLock().fence!))!;
  // WAIT counts acknowledgements of this connection's own writes: one after the grant's, in order.
  await onPrimary.set('replicated-up-to-here', '1');
  t.is(await onPrimary.call('WAIT', 1, 5_000), 1, 'the replica acknowledged the earlier grant');
  t.is(Number(await onReplica.get(counter)), earlier);

  // The replica misses the next grant: stopped, and its link cut, so the write never reaches it.
  process.kill(replica.pid, 'SIGSTOP');
  replicaStopped = replica.pid;
  await onPrimary.client('KILL', 'TYPE', 'replica');

  let running = 0;
  let mostAtOnce = 0;
  const enter = () => (mostAtOnce = Math.max(mostAtOnce, ++running));
  const firstHolds = signal();
  const firstMayWrite = signal();
  let firstFence = 0;
  let firstStillBelieves = false;
  const first = restock.run('sku-1', async () => {
    enter();
    firstFence = currentLock().fence!;
    firstHolds.resolve();
    await firstMayWrite.promise; // a long pause: GC, a slow disk, a stalled network
    firstStillBelieves = !currentLock().signal.aborted;
    await db.set('plain:sku-1', 'count=10 by the first holder'); // a write that checks nothing
    const written = await stock.write('sku-1', 10, firstFence);
    running--;
    return written;
  });
  await firstHolds.promise;
  t.true(firstFence > earlier);
  t.is(Number(await onPrimary.get(counter)), firstFence);

  // The primary dies; the replica, which missed the grant, is forced to take over.
  await primary.kill();
  process.kill(replica.pid, 'SIGCONT');
  replicaStopped = undefined;
  await onReplica.replicaof('NO', 'ONE');
  t.is(await onReplica.get(key), null, 'the new primary never saw the first grant');
  t.true(
    Number(await onReplica.get(counter)) < firstFence,
    "nor its counter's increment: a counter alone would give the stale number again",
  );

  // A second caller, pointed at the new primary, gets the key: both bodies now run.
  configure({ redis: replica.url });
  let secondFence = 0;
  const secondWrote = await restock.run('sku-1', async () => {
    enter();
    secondFence = currentLock().fence!;
    await db.set('plain:sku-1', 'count=20 by the second holder');
    const written = await stock.write('sku-1', 20, secondFence);
    running--;
    return written;
  });
  firstMayWrite.resolve();
  const firstWrote = await first;

  t.is(mostAtOnce, 2, 'two bodies held the key at once: a lock alone cannot stop that');
  t.true(firstStillBelieves, 'the first holder had no sign it had lost the lock when it wrote');
  t.true(secondFence > firstFence, `the new primary's fence ${secondFence} > the stale ${firstFence}`);
  t.true(secondWrote, "the second holder's write is accepted");
  t.false(firstWrote, "the stale holder's write is refused by its fence");
  t.deepEqual(await stock.read('sku-1'), { count: 20, fence: secondFence });
  t.is(
    await db.get('plain:sku-1'),
    'count=10 by the first holder',
    'the unfenced write let the stale holder overwrite the new one',
  );
});
