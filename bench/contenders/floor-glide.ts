// The floor on a Valkey GLIDE client: floor.ts's two commands (SET NX PX, then the compare-and-
// delete script) sent through GLIDE to the same single server. GLIDE hands every command to its
// Rust core over a local socket, which costs a section more than ioredis's write does: this row
// is what GLIDE itself allows, and "lockweave on GLIDE" is read against it.
import { GlideClient, Script } from '@valkey/valkey-glide';
import { randomUUID } from 'node:crypto';
import { GIVE_UP_MS, LEASE_MS, sleep, type Contender } from './contender';
import { RELEASE_SCRIPT, RETRY_MS } from './floor';

export function createFloorGlide(): Contender {
  let glide: GlideClient | undefined;
  const release = new Script(RELEASE_SCRIPT);
  return {
    name: 'floor on GLIDE',
    settings: `the floor's SET NX PX ${LEASE_MS} and compare-and-DEL (invokeScript) through GlideClient.createClient() of @valkey/valkey-glide 2`,
    async setup(redis) {
      glide = await GlideClient.createClient({
        addresses: [{ host: redis.options.host ?? '127.0.0.1', port: redis.options.port }],
        requestTimeout: 2_000,
      });
    },
    async lock(key, body) {
      const client = glide!;
      const token = randomUUID();
      const deadline = Date.now() + GIVE_UP_MS;
      while ((await client.customCommand(['SET', key, token, 'PX', String(LEASE_MS), 'NX'])) !== 'OK') {
        if (Date.now() > deadline) throw new Error(`floor on GLIDE: gave up on ${key}`);
        await sleep(RETRY_MS);
      }
      try {
        return await body();
      } finally {
        await client.invokeScript(release, { keys: [key], args: [token] });
      }
    },
    async teardown() {
      glide?.close();
      glide = undefined;
    },
  };
}
