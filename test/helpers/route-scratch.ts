// What every test file of a route shares: the package linked where fixtures resolve `lockweave/…`
// (to dist), a fresh scratch folder under test/.tmp for the file's copies, and a redis-server of
// its own. Registered as the file's before/after hooks; `redis()` is the server once they ran.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { linkPackage, ROOT } from './fixture-projects';
import { startRedisServer, type RedisServer } from './redis-server';

export interface RouteScratch {
  /** The scratch folder, emptied before the file's tests. */
  readonly dir: string;
  readonly redis: () => RedisServer;
}

export function routeScratch(...under: string[]): RouteScratch {
  const dir = path.join(ROOT, 'test', '.tmp', ...under);
  let server: RedisServer | undefined;
  test.before(async () => {
    linkPackage();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    server = await startRedisServer();
  });
  test.after.always(async () => {
    await server?.stop();
  });
  return {
    dir,
    redis: () => {
      if (!server) throw new Error('routeScratch: the redis-server starts in the before hook');
      return server;
    },
  };
}

/** A copy of `fixture` at `dir`, whose node_modules/typescript links to the repo's package `typescript` (none: the repo's 5.9). */
export function projectCopy(fixture: string, dir: string, typescript?: string): string {
  fs.cpSync(fixture, dir, { recursive: true });
  if (typescript) {
    fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules', typescript), path.join(dir, 'node_modules', 'typescript'), 'dir');
  }
  return dir;
}
