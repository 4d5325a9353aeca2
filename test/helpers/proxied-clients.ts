// A lock client of each kind the runtime takes, connected through a fault proxy (fault-proxy.ts):
// the runtime's own ioredis, a user's ioredis (with and without re-sending), GLIDE, node-redis 5 and 6.
// The fault tests that cut, drop or garble what one connection carries run each against them all.
import { GlideClient } from '@valkey/valkey-glide';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { createClient as createClient5 } from 'redis5';
import { COMMAND_TIMEOUT_MS } from '../../runtime/store/command-batch';
import type { ExecutionContext } from 'ava';
import { close, configure } from 'lockweave';
import { startFaultProxy, type FaultProxy } from './fault-proxy';

export interface ProxiedClient {
  /** What configure() is given: the proxy's URL, or a client connected through the proxy. */
  redis: unknown;
  /** The user's own command on the client (none: the runtime's own connection): its reply must be its own again. */
  echo?: (text: string) => Promise<unknown>;
  /**
   * node-redis only: the next command's process stalls (a busy event loop) for longer than the
   * bound, between node-redis queueing the command and writing it (setImmediate): the caller's
   * bound and node-redis's own timeout pass during the stall.
   */
  stallNextSend?: () => void;
  end(): Promise<void>;
}

/** Blocks this process's event loop for `ms`: what a loaded machine does to a process now and then. */
function stallEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // A busy loop, on purpose: no timer, socket or immediate runs meanwhile.
  }
}

/** Each kind, by its label; `host`: the server's, which GLIDE is given beside the proxy's port. */
export function proxiedClients(host: () => string): Record<string, (proxy: FaultProxy) => Promise<ProxiedClient>> {
  return {
    "the runtime's own ioredis": async (proxy) => ({ redis: proxy.url, end: async () => undefined }),
    "a user's ioredis": async (proxy) => {
      const client = new Redis(proxy.url, { autoResendUnfulfilledCommands: false });
      return { redis: client, echo: (text) => client.echo(text), end: async () => client.disconnect() };
    },
    "a user's ioredis that re-sends unanswered commands": async (proxy) => {
      const client = new Redis(proxy.url);
      return { redis: client, echo: (text) => client.echo(text), end: async () => client.disconnect() };
    },
    // GLIDE times out the lost reply's request at its requestTimeout (250 ms) and reads a later one's reply in its place.
    "a user's GLIDE client": async (proxy) => {
      const client = await GlideClient.createClient({ addresses: [{ host: host(), port: proxy.port }] });
      return { redis: client, echo: (text) => client.customCommand(['ECHO', text]), end: async () => client.close() };
    },
    ...Object.fromEntries(
      (
        [
          ['redis', createClient],
          ['redis5', createClient5],
        ] as const
      ).map(([name, create]) => [
        `a user's node-redis (${name})`,
        async (proxy: FaultProxy): Promise<ProxiedClient> => {
          // Typed as v6's: v5's takes the same options.
          const client = (create as typeof createClient)({ url: proxy.url });
          client.on('error', () => undefined);
          await client.connect();
          let stall = false;
          const send = client.sendCommand.bind(client);
          client.sendCommand = ((...args: Parameters<typeof send>) => {
            const sent = send(...args);
            if (stall) {
              stall = false;
              stallEventLoop(COMMAND_TIMEOUT_MS + 500);
            }
            return sent;
          }) as typeof send;
          return {
            redis: client,
            stallNextSend: () => {
              stall = true;
            },
            echo: (text) => client.sendCommand(['ECHO', text]),
            end: async () => void (client.isOpen ? client.destroy() : undefined),
          };
        },
      ]),
    ),
  };
}

/** A fault proxy in front of `server`, a client of `open`'s kind through it, and configure() given it: all ended with the test. */
export async function lockingThroughProxy(
  t: ExecutionContext,
  server: { host: string; port: number },
  open: (proxy: FaultProxy) => Promise<ProxiedClient>,
): Promise<{ proxy: FaultProxy; client: ProxiedClient }> {
  const proxy = await startFaultProxy({ host: server.host, port: server.port });
  const client = await open(proxy);
  t.teardown(async () => {
    await close();
    await client.end();
    await proxy.close();
  });
  configure({ redis: client.redis as string });
  return { proxy, client };
}
