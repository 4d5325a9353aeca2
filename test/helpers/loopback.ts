// A server of a test listening on a free loopback port (never another address: tests send
// traffic to this machine only).
import { createConnection, type Server } from 'node:net';

export async function listenOnLoopback(server: Server): Promise<{ port: number; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return { port, url: `redis://127.0.0.1:${port}` };
}

/**
 * A loopback port nothing listens on, and no test's server can be given: one below the kernel's range
 * of ephemeral ports, from which every server of the tests gets its port (listen(0)). A stopped
 * server's port is not one: a server another test starts meanwhile may be given it (CI runs two
 * suites side by side), and a lock meant to find nothing there takes a key on that server instead.
 */
export async function closedLoopbackPort(): Promise<number> {
  for (const port of [1, 2, 3, 4, 5, 7, 9]) if (await refused(port)) return port;
  throw new Error('closedLoopbackPort: something listens on each of 127.0.0.1:1-9');
}

/** Whether a connection to the port is refused at once; one that hangs (a firewall dropping it) is not taken. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const settle = (isRefused: boolean) => {
      socket.destroy();
      resolve(isRefused);
    };
    socket.setTimeout(REFUSAL_WAIT_MS, () => settle(false));
    socket.once('connect', () => settle(false));
    socket.once('error', (error: NodeJS.ErrnoException) => settle(error.code === 'ECONNREFUSED'));
  });
}

const REFUSAL_WAIT_MS = 1_000;
