// Valkey GLIDE (@valkey/valkey-glide 2) as a client family of client-fixture.ts: a GlideClient
// created as a user would, with GLIDE's default request timeout (250 ms).
import { GlideClient } from '@valkey/valkey-glide';
import type { ClientFamily } from './client-fixture';

export const GLIDE: ClientFamily = {
  name: 'glide',
  async connect(server) {
    const client = await GlideClient.createClient({ addresses: [{ host: server.host, port: server.port }] });
    return { client, close: () => client.close() };
  },
};
