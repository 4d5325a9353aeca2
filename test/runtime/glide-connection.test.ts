// How the runtime fails and recovers on a Valkey GLIDE client (client-fixture.ts; GLIDE reconnects
// by itself and says nothing: the runtime learns of a lost server from commands that time out),
// and `replicas` (WAIT on the client's connection to the primary); a client whose replies could not
// be checked is refused.
import test from 'ava';
import { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { configure, defineLock, LockAcquireError } from 'lockweave';
import { Redis } from 'ioredis';
import { startReplicaOf } from '../helpers/primary-replica';
import { startRedisServer } from '../helpers/redis-server';
import { clientConnectionPromises, configuredOn } from './client-fixture';
import { GLIDE } from './glide';

clientConnectionPromises(test, GLIDE);

test.serial(
  'glide: replicas=1: a grant counts once the replica has it; without a replica it is given back',
  async (t) => {
    const primary = await startRedisServer();
    await configuredOn(GLIDE, primary, async () => {
      const look = new Redis(primary.url);
      try {
        const lonely = defineLock({ businessFlag: 'glideReplicas', replicas: 1, waitTime: 300 });
        const error = await t.throwsAsync(lonely.acquire('A'), { instanceOf: LockAcquireError });
        t.regex(error!.message, /0 of 1 replica\(s\) acknowledged the grant/);
        t.is(await look.get(lonely.keyFor('A')), null, 'the grant was given back');
        const replica = await startReplicaOf(primary);
        try {
          // WAIT then waits up to 1 s (min(waitTime, lockTime / 3, 1 s)) for the replica's answer: room on a loaded machine.
          const replicated = defineLock({ businessFlag: 'glideReplicas', replicas: 1, waitTime: 2_000 });
          const lease = await replicated.acquire('A');
          t.true(lease!.held, 'WAIT counted the replica');
          await lease!.release();
        } finally {
          await replica.stop();
        }
      } finally {
        look.disconnect();
      }
    });
  },
);

test.serial(
  'glide: configure() refuses a closed GLIDE client, and a GLIDE client among Redlock servers, saying so',
  async (t) => {
    const own = await startRedisServer();
    const { client, close } = await GLIDE.connect(own);
    try {
      t.throws(() => configure({ redlock: [client, 'redis://127.0.0.1:1', 'redis://127.0.0.1:2'] as never }), {
        instanceOf: TypeError,
        message: /server 0 is a Valkey GLIDE client; Redlock's servers are/,
      });
      close();
      t.throws(() => configure({ redis: client }), { instanceOf: TypeError, message: /the GLIDE client is closed/ });
    } finally {
      await own.stop();
    }
  },
);

// The class the runtime checks replies with (a Batch, a cluster's ClusterBatch) is taken from the GLIDE copy
// that made the client, found by the client's class; a subclass of the user's own stands for a
// bundled copy whose modules cannot be read. Not connected: refused before any command.
for (const [Client, name] of [
  [GlideClient, 'Batch'],
  [GlideClusterClient, 'ClusterBatch'],
] as const) {
  test(`glide: a ${Client.name} of a copy whose ${name} class cannot be found is refused at configure()`, (t) => {
    const Bundled = class extends (Client as unknown as new () => object) {};
    const client = Object.create(Bundled.prototype) as object;
    const error = t.throws(() => configure({ redis: client as never }), { instanceOf: TypeError });
    t.regex(error!.message, new RegExp(`the GLIDE client's ${name} class was not found`));
  });
}
