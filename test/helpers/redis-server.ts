// A throwaway redis-server for one test file, benchmark or demo run.
//
// The binary is `redis-server` unless LOCKWEAVE_REDIS_SERVER names another that takes the same
// arguments and speaks the same protocol (scripts/test-all.sh runs the Redis-backed suites again with
// LOCKWEAVE_REDIS_SERVER=valkey-server).
//
// Each caller gets its own server on a free loopback port, with persistence off and a
// private working directory, so runs never touch a system Redis or each other. Only the
// process started here is ever stopped, by its own PID.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './time';

export interface RedisServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly url: string;
  /** PID of the server process, for fault tests that pause or kill it. */
  readonly pid: number;
  /** Its working directory (the AOF lives here when persistence is turned on); removed by stop(). */
  readonly dir: string;
  /** Kills the server (SIGKILL) and waits for it to exit; the port stays reserved for restart(). */
  kill(): Promise<void>;
  /** Starts a fresh server on the same port after kill(), with `moreArgs` after the first ones (e.g. `--replicaof`). */
  restart(moreArgs?: readonly string[]): Promise<void>;
  /** Stops the server and removes its working directory. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** The server binary the tests start: `redis-server`, or LOCKWEAVE_REDIS_SERVER (e.g. `valkey-server`). */
export const redisServerBinary = process.env.LOCKWEAVE_REDIS_SERVER || 'redis-server';

/** The binary's name and version as its `--version` prints them, e.g. `valkey-server 8.0.1`. */
export function redisServerVersion(): string {
  const out = execFileSync(redisServerBinary, ['--version'], { encoding: 'utf8' });
  return `${redisServerBinary} ${out.match(/v=(\S+)/)?.[1] ?? out.trim()}`;
}

export interface StartOptions {
  /**
   * Starts a Sentinel (`redis-server <conf> --sentinel`) whose config file holds these lines; the
   * file lives in the server's directory, since a Sentinel rewrites it as it learns the topology.
   */
  sentinelConfig?: string;
}

export async function startRedisServer(
  extraArgs: readonly string[] = [],
  options: StartOptions = {},
): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'lockweave-redis-'));
  if (options.sentinelConfig !== undefined) {
    writeFileSync(join(dir, 'sentinel.conf'), `${options.sentinelConfig}\n`);
    extraArgs = [join(dir, 'sentinel.conf'), '--sentinel', ...extraArgs];
  }
  // A port can be taken between our probe and redis binding it; try a few.
  for (let attempt = 1; attempt <= 5; attempt++) {
    const port = await freeLoopbackPort();
    try {
      let child = await launch(port, dir, extraArgs);
      const server: RedisServer = {
        host: '127.0.0.1',
        port,
        url: `redis://127.0.0.1:${port}`,
        dir,
        get pid() {
          return child.pid!;
        },
        async kill() {
          await stopProcess(child, 'SIGKILL');
        },
        async restart(moreArgs = []) {
          child = await launch(port, dir, [...extraArgs, ...moreArgs]);
        },
        async stop() {
          await stopProcess(child, 'SIGTERM');
          rmSync(dir, { recursive: true, force: true });
        },
      };
      return server;
    } catch (error) {
      if (attempt === 5) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  throw new Error('unreachable');
}

async function launch(port: number, dir: string, extraArgs: readonly string[]): Promise<ChildProcess> {
  // A Sentinel's config file must come first on its command line.
  const configFile = extraArgs[1] === '--sentinel' ? extraArgs.slice(0, 2) : [];
  const args = [
    ...configFile,
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
    ...extraArgs.slice(configFile.length),
  ];
  const child = spawn(redisServerBinary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(new Error(`cannot start ${redisServerBinary} (${error.message}); run \`npm run setup\` to install it`)),
    );
    child.once('exit', (code) => reject(new Error(`${redisServerBinary} exited with ${code}: ${stderr.trim()}`)));
  });
  await Promise.race([waitForPing(port), exited]);
  exited.catch(() => undefined); // later exits are expected (kill, stop)
  return child;
}

async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await ping(port)) return;
    await sleep(25);
  }
  throw new Error(`${redisServerBinary} on port ${port} did not answer PING within ${START_TIMEOUT_MS} ms`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
