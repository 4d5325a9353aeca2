// A slot moved to another primary after the client learnt the slot map, as a resharding does: first
// while it migrates (the old primary answers ASK for a key it does not have), then once it has
// moved (MOVED). On every Cluster client the store sends through, a lock command answered with a
// redirection is sent again where the slot is now, and the lock's promises hold there: one holder,
// a key held by another token never entered, a release that frees the key. On a node-redis cluster
// this is the path where a reply is checked by a PING on every primary (node-redis-cluster.ts); GLIDE
// follows redirections itself, and its replies vouch for themselves (glide-cluster-sender.ts).
import test from 'ava';
import { Cluster } from 'ioredis';
import { close, defineLock, withLock } from 'lockweave';
import { eventually, sleep } from '../helpers/time';
import { keysPerShard, startRedisCluster, type ClusterNode, type RedisCluster } from '../helpers/redis-cluster';
import { slotOf } from '../../runtime/store/cluster-slot';
import { configuredThrough, everyClusterClient, outcome } from './cluster-client';

const OTHER_TOKEN = 'another-holders-token';
const businessFlag = 'clusterSlotMoved';

let cluster: RedisCluster;
let look: Cluster;

test.before(async () => {
  cluster = await startRedisCluster();
  look = new Cluster([...cluster.urls]);
  look.on('error', () => undefined);
});

test.after.always(async () => {
  await close();
  look?.disconnect();
  await cluster?.stop();
});

const setSlot = (node: ClusterNode, slot: number, ...state: string[]) =>
  node.admin.call('cluster', 'setslot', slot, ...state);

for (const [index, [name, connect]] of Object.entries(everyClusterClient(() => cluster.urls)).entries()) {
  test.serial(`${name}: lock commands follow a slot that migrates and then moves to another primary`, async (t) => {
    await configuredThrough(t, connect);
    const keyFor = (value: string) => defineLock({ businessFlag }).keyFor(value);
    const request = (value: string) => ({ businessFlag, key: value, lockTime: 10_000, retries: 0 });

    // Two keys of one slot, of a primary taken in turn.
    const mine = keysPerShard(keyFor, `moved-${index}`, 1)[index % 3]![0]!;
    const slot = slotOf(keyFor(mine));
    const theirs = sameSlot(keyFor, slot, `moved-${index}-other`);
    const from = await cluster.primaryOf(keyFor(mine));
    // The cluster's first three nodes are its primaries (redis-cluster.ts); none fails over here.
    const primaries = cluster.nodes.slice(0, 3);
    const to = primaries.find((primary) => primary !== from)!;

    // The client learns the slot map and connects to every primary.
    t.is(await outcome(withLock(request(mine), async () => 'warm')), 'resolved warm');

    // Two callers at once (not nested: a nested call would re-enter): one holds, one is refused.
    const oneHolder = async (stage: string) => {
      const hold = () =>
        outcome(
          withLock(request(mine), async () => {
            const token = await look.get(keyFor(mine));
            await sleep(200);
            return token === null ? 'held, but the key is not set' : 'held';
          }),
        );
      const outcomes = await Promise.all([hold(), hold()]);
      t.deepEqual(
        outcomes.map((text) => text.replace(/^LockAcquireError: .*/s, 'refused')).sort(),
        ['refused', 'resolved held'],
        `${stage}: one holder, one refused (${outcomes.join('; ')})`,
      );
    };

    // Migrating: the old primary answers ASK for a key it does not have.
    await setSlot(to, slot, 'importing', from.id);
    await setSlot(from, slot, 'migrating', to.id);
    await oneHolder('migrating');
    // Its release names the key's waiting line too, which neither primary has: Redis refuses such a
    // call for a slot being imported (TRYAGAIN), and the release is sent again (lock/clean-up.ts).

    // Moved: every primary says the slot is the new one's; the client's map still says the old one.
    for (const primary of [to, from, ...primaries.filter((node) => node !== from && node !== to)])
      await setSlot(primary, slot, 'node', to.id);
    t.true(
      await eventually(async () => (await look.exists(keyFor(mine))) === 0, { timeoutMs: 10_000, everyMs: 100 }),
      'the release sent again during the migration frees the key once the slot has moved',
    );
    await look.set(keyFor(theirs), OTHER_TOKEN, 'PX', 30_000);
    let theirsBodyRan = false;
    const entered = await outcome(
      withLock(request(theirs), async () => {
        theirsBodyRan = true;
      }),
    );
    t.false(theirsBodyRan, 'moved: a key another token holds is not entered');
    t.regex(entered, /^LockAcquireError/);
    await oneHolder('moved');
    t.is(await look.exists(keyFor(mine)), 0, 'moved: the holder released the key');
    t.is(await look.get(keyFor(theirs)), OTHER_TOKEN, "the other holder's token is untouched");
    t.is((await cluster.primaryOf(keyFor(mine))).id, to.id);
  });
}

/** A value whose lock key falls in `slot` (one in 16,384 does; bounded at 20 times that). */
function sameSlot(keyFor: (value: string) => string, slot: number, label: string): string {
  for (let n = 0; n < 20 * 16_384; n++) if (slotOf(keyFor(`${label}-${n}`)) === slot) return `${label}-${n}`;
  throw new Error(`no key of slot ${slot} found`);
}
