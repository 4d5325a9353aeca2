// The runtime runs from its TypeScript sources in this repository's tests (lockweave-from-source),
// and refuses a process in which TypeScript holding tag text ran unwoven: its own files must hold
// none — not in a message, not in a comment — or it would refuse itself.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAY_HOLD_TAG } from '../../runtime/base/tag-text';

function typeScriptFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test("no file of the runtime's sources holds tag text", (t) => {
  const files = typeScriptFiles(path.join(__dirname, '..', '..', 'runtime'));
  t.true(files.length > 50);
  t.deepEqual(
    files.filter((file) => MAY_HOLD_TAG.test(fs.readFileSync(file, 'utf8'))),
    [],
  );
});
