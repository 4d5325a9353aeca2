// A server of a test listening on a free loopback port (never another address: tests send
// traffic to this machine only).
import type { Server } from 'node:net';

export async function listenOnLoopback(server: Server): Promise<{ port: number; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return { port, url: `redis://127.0.0.1:${port}` };
}
