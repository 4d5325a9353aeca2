// lockweave's own version, from its package.json: the nearest one above this file (dist/transformer
// when installed, transformer/ when the tests run the source).
import * as fs from 'node:fs';
import * as path from 'node:path';

function ownManifest(): string {
  for (let dir = __dirname, depth = 0; depth < 4; dir = path.dirname(dir), depth++) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return file;
  }
  throw new Error(`lockweave: no package.json above ${__dirname}`);
}

export const LOCKWEAVE_VERSION: string = String(
  (JSON.parse(fs.readFileSync(ownManifest(), 'utf8')) as { version?: unknown }).version,
);
