// What a Redis is sent, command by command, in the order it ran them: MONITOR on a socket of its
// own (ioredis's monitor mode mistakes the lines that come before its MONITOR is answered for
// replies). For tests that must see which commands went, not only what they left behind.
import { connect, type Socket } from 'node:net';

export interface Monitor {
  /** The commands run since the monitor started, each as its words: ['evalsha', sha, '4', …]. */
  readonly sent: string[][];
  close(): void;
}

/** Starts a monitor of the Redis at `url` (redis://host:port); resolves once Redis said OK. */
export function monitorRedis(url: string): Promise<Monitor> {
  const { hostname, port } = new URL(url);
  const sent: string[][] = [];
  const socket: Socket = connect(Number(port), hostname);
  let buffered = '';
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (line === '+OK') resolve({ sent, close: () => socket.destroy() });
        else if (line.startsWith('+')) sent.push([...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!));
      }
    });
    socket.write('MONITOR\r\n');
  });
}
