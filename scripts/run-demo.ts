// Finds a Redis for the demo and runs examples/dist/main.js against it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startRedisServer, type RedisServer } from '../test/helpers/redis-server';

function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function main(): Promise<void> {
  const env = { ...process.env };
  let server: RedisServer | undefined;
  if (!env.REDIS_URL) {
    if (hasRedisServer()) {
      server = await startRedisServer();
      env.REDIS_URL = server.url;
      console.log(`   started a throwaway redis-server on ${server.url} (pid ${server.pid})`);
    } else {
      env.LOCKWEAVE_DEMO_STORE = 'memory';
    }
  }
  try {
    const result = spawnSync(process.execPath, [join(__dirname, '..', 'examples', 'dist', 'main.js')], {
      env,
      stdio: 'inherit',
      timeout: 60_000,
    });
    process.exitCode = result.status ?? 1;
  } finally {
    await server?.stop();
  }
}

void main();
