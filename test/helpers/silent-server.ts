// A TCP server on loopback that accepts connections and never answers: a Redis that is paused,
// swapped out, or behind a link that drops everything — or a wrong port that something else holds.
import { createServer, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback';

export interface SilentServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  const { port, url } = await listenOnLoopback(server);
  return {
    port,
    url,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
