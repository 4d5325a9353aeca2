// `lockweave locks --cluster` and `unlock --force` on a real Redis Cluster: SCAN runs on every
// primary, so a lock on each shard is listed; each key is read and removed on its own shard.
import test from 'ava';
import { defineLock, lock } from 'lockweave';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';
import { keysPerShard, useRedisCluster } from '../helpers/redis-cluster';
import { uniqueId } from '../helpers/redis-fixture';

const fixture = useRedisCluster(test);
const runChild = childRunner(2);

test('locks --cluster lists a lock on every shard; unlock --force removes one on its shard', async (t) => {
  const businessFlag = uniqueId('shards');
  const L = defineLock({ businessFlag });
  const values = keysPerShard((value) => L.keyFor(value), 'v', 1).flat();
  t.is(values.length, 3);
  const leases = await Promise.all(values.map((key) => lock({ businessFlag, key, lockTime: 60_000 })));
  const cli = (args: readonly string[]) =>
    runChild(process.execPath, [CLI, ...args, '--redis', fixture.cluster.urls[0]!, '--cluster'], { cwd: ROOT });
  const listed = await cli(['locks', '--match', `LOCK_${businessFlag}_*`]);
  t.is(listed.status, 0, listed.output);
  for (const lease of leases) t.true(listed.stdout.includes(lease.key), `${lease.key} listed:\n${listed.stdout}`);
  t.regex(listed.stdout, /3 locks on /);
  const removed = await cli(['unlock', leases[2]!.key, '--force']);
  t.is(removed.status, 0, removed.output);
  t.is(await fixture.client.get(leases[2]!.key), null);
  await Promise.all(leases.map((lease) => lease.release()));
});
