// Fault kind: a command redirected (MOVED) while the replies after the redirection on its first
// primary's connection are held up (a proxy in front of every node, cluster-proxies.ts; the proxy's
// holdAfterReply). The command's reply then comes from the new primary before the old one's PING
// is answered, so the old primary's PING cannot vouch for it: only a PING on every primary, each
// answered with its own nonce, shows that no connection shifted the reply it came on (batch-pairing.ts:
// a command the Cluster wrote twice; node-redis-cluster.ts: a command sent again through the
// cluster's routing). Seen at the primary neither the old nor the new one: a PING there for the
// redirected command — and none for a command answered where it was written. (GLIDE's replies
// vouch for themselves: glide-cluster-sender.ts.)
import test from 'ava';
import { defineLock, withLock } from 'lockweave';
import { slotOf } from '../../runtime/store/cluster-slot';
import { keysPerShard, type ClusterNode } from '../helpers/redis-cluster';
import { configuredThrough, everyClusterClient, outcome } from './cluster-client';
import { useClusterBehindProxies } from './cluster-proxies';

const businessFlag = 'clusterRedirectedReply';
/** How long the old primary's replies after the MOVED are held: far longer than the redirected round trip. */
const HELD_MS = 600;

const topology = useClusterBehindProxies(test);

/** How many PINGs `node` has run. */
async function pingsOn(node: ClusterNode): Promise<number> {
  const stats = String(await node.admin.info('commandstats'));
  return Number(/^cmdstat_ping:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
}

const { 'a GLIDE GlideClusterClient': _glide, ...clients } = everyClusterClient(() => [topology().proxies[0]!.url]);

for (const [index, [name, connect]] of Object.entries(clients).entries())
  test.serial(`${name}: a redirected command's reply is checked by a PING on every primary`, async (t) => {
    const { cluster, proxies } = topology();
    await configuredThrough(t, connect);
    const keyFor = (value: string) => defineLock({ businessFlag }).keyFor(value);
    const request = (value: string) => ({ businessFlag, key: value, lockTime: 10_000, retries: 0 });
    // A key of each primary, and one more of each to move or keep. The first three nodes are the
    // primaries, in the order of the shards' slot ranges (redis-cluster.ts); none fails over here.
    const shards = keysPerShard(keyFor, `redirected-${index}`, 2);
    for (const [value] of shards) t.is(await outcome(withLock(request(value!), async () => 'warm')), 'resolved warm');
    const [from, to, bystander] = cluster.nodes.slice(0, 3) as [ClusterNode, ClusterNode, ClusterNode];
    const moved = shards[0]![1]!;
    const slot = slotOf(keyFor(moved));
    // The slot holds no key: it moves at once, and the client's map still names the old primary.
    for (const primary of [to, from, bystander]) await primary.admin.call('cluster', 'setslot', slot, 'node', to.id);

    const fromConnections = proxies[0]!.carrying(/^(SET|EVALSHA)$/);
    t.is(fromConnections.length, 1, 'one connection to the old primary carries the lock commands');
    fromConnections[0]!.holdAfterReply(/-MOVED \d+/, HELD_MS);
    let before = await pingsOn(bystander);
    t.is(await outcome(withLock(request(moved), async () => 'moved')), 'resolved moved');
    t.true((await pingsOn(bystander)) > before, "the redirected command's reply waited for a PING on every primary");

    // A command answered where it was written: its own primary's PING alone.
    const stays = shards[1]![1]!;
    before = await pingsOn(bystander);
    t.is(await outcome(withLock(request(stays), async () => 'stays')), 'resolved stays');
    t.is(await pingsOn(bystander), before, 'no PING on another primary for a command answered where it was written');
  });
