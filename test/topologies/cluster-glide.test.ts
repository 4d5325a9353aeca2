// The lock's promises on a real Cluster (valkey-server 8 on the Valkey run) through a Valkey GLIDE
// GlideClusterClient the test created as a user would: scripts go to the primary of their key's
// slot, releases are announced on its shard channel (SPUBLISH) and heard through GLIDE's SSUBSCRIBE.
import test from 'ava';
import { GlideClusterClient } from '@valkey/valkey-glide';
import { clusterClientLockSemantics } from './cluster-client';

clusterClientLockSemantics(test, async (cluster) => {
  const addresses = cluster.nodes.map((node) => ({ host: node.server.host, port: node.server.port }));
  const client = await GlideClusterClient.createClient({ addresses, requestTimeout: 2_000 });
  return { client, close: () => client.close() };
});
