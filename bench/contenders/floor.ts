// The floor: the least a correct Redis lock can do, on the same ioredis client.
// Uncontended, exactly one `SET key token NX PX` and one `EVALSHA` compare-and-delete per
// critical section, nothing else. Contended, it polls: SET NX again 1 ms after a refusal —
// as eager as a poller gets without spinning the event loop, so the floor is a hard baseline.
// On a Cluster it is the same two commands through an ioredis Cluster client of that Cluster: what
// the topology itself allows a lock, against which lockweave on it is read.
import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { GIVE_UP_MS, LEASE_MS, lockingOn, sleep, type Contender } from './contender';
import { CLUSTER, SINGLE, type LockServers } from './topology-servers';

export const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
export const RETRY_MS = 1;

function floorOn<Client extends Redis | Cluster>(servers: LockServers<Client>): () => Contender {
  return lockingOn(
    servers,
    'floor',
    `${servers.where ? `through an ioredis ${servers.where} client: ` : ''}SET NX PX ${LEASE_MS}; refused → SET NX again after ${RETRY_MS} ms (give up after ${GIVE_UP_MS} ms); release EVALSHA compare-and-DEL (script loaded once at setup${servers.where ? ', on each primary' : ''})`,
    async (client) => {
      const nodes = 'nodes' in client ? client.nodes('master') : [client];
      const [sha] = (await Promise.all(nodes.map((node) => node.script('LOAD', RELEASE_SCRIPT)))) as string[];
      return async (key) => {
        const token = randomUUID();
        const deadline = Date.now() + GIVE_UP_MS;
        while ((await client.set(key, token, 'PX', LEASE_MS, 'NX')) !== 'OK') {
          if (Date.now() > deadline) throw new Error(`floor: gave up on ${key}`);
          await sleep(RETRY_MS);
        }
        return () => client.evalsha(sha!, 1, key, token);
      };
    },
  );
}

export const createFloor = floorOn(SINGLE);
export const createFloorCluster = floorOn(CLUSTER);
