// The fixture projects of the end-to-end tests (test/transformer/e2e, test/routes): where they are,
// the `lockweave` package they resolve, a child process on this Node, and tsc's error lines read back.
// Compiling them with tspc is test/helpers/tspc.ts's.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'transformer');
export const TMP = path.join(ROOT, 'test', '.tmp', 'transformer');
export const TS6 = path.join(ROOT, 'node_modules', 'typescript6');
export const TS7_TSC = path.join(ROOT, 'node_modules', 'typescript7', 'bin', 'tsc');
export const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

/**
 * Fixture projects name the plugin `lockweave/transformer`, as users do. Inside this repo the
 * package is not in node_modules, so a stand-in package makes `lockweave/...` resolve from the
 * fixtures (for ts-patch) and from test/.tmp (for woven code at run time, ESM output included).
 * The stand-in is a real directory holding package.json and a `dist` link: a link to the repo
 * root itself would make a cycle (root → test → ... → root) that file walkers such as ava's
 * glob follow forever.
 */
export function linkPackage(): void {
  const manifest = fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8');
  for (const dir of [
    path.join(FIXTURES, 'node_modules', 'lockweave'),
    path.join(ROOT, 'test', '.tmp', 'node_modules', 'lockweave'),
  ]) {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== manifest) fs.writeFileSync(file, manifest);
    const dist = path.join(dir, 'dist');
    try {
      fs.symlinkSync(path.relative(dir, path.join(ROOT, 'dist')), dist, 'dir');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  assertBuilt();
}

/** The tests run the compiled transformer (as users do); a stale dist would test old code. */
function assertBuilt(): void {
  const built = path.join(ROOT, 'dist', 'transformer', 'index.js');
  const newest = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const full = path.join(dir, entry.name);
      return Math.max(max, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
    }, 0);
  if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < newest(path.join(ROOT, 'transformer'))) {
    throw new Error(
      'dist/transformer is missing or older than transformer/: run `npx tsc -p tsconfig.build.json` (npm test does it)',
    );
  }
}

/**
 * lockweave as npm leaves a package at `dir`: its package.json and dist, copied (a link would lead
 * tools that follow it to the repo's sources and own node_modules).
 */
export function installedCopy(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  fs.cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
}

export function run(
  file: string,
  args: string[],
  env: Record<string, string> = {},
): SpawnSyncReturns<string> & { output: string } {
  const result = spawnSync(process.execPath, [file, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 90_000,
  });
  return Object.assign(result, { output: `${result.stdout}${result.stderr}` });
}

export function fixture(...parts: string[]): string {
  return path.join(FIXTURES, ...parts);
}

export interface Expectation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: number;
}

/** Reads `// expect TS930xx "text"` lines: the error must start at `text`'s next occurrence. */
export function expectations(dir: string): Expectation[] {
  const found: Expectation[] = [];
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.ts'))
    .sort()) {
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    const marker = /\/\/ expect TS(\d+) "((?:[^"\\]|\\.)*)"\n/g;
    for (let match: RegExpExecArray | null; (match = marker.exec(text)); ) {
      const target = JSON.parse(`"${match[2]}"`) as string;
      const at = text.indexOf(target, match.index + match[0].length);
      if (at < 0) throw new Error(`${name}: "${target}" not found after its expect line`);
      const before = text.slice(0, at).split('\n');
      found.push({
        file: name,
        line: before.length,
        column: before[before.length - 1].length + 1,
        code: Number(match[1]),
      });
    }
  }
  return found;
}

export interface Reported {
  file: string;
  line: number;
  column: number;
  code: number;
  message: string;
}

/** `path/file.ts(12,7): error TS93010: …` lines of tsc's --pretty false output (the tag is not written out here: a test process loads this file unwoven, and the runtime refuses TypeScript it ran whose text holds a tag). */
export function reported(output: string): Reported[] {
  const lines = [...output.matchAll(/^(.*?)\((\d+),(\d+)\): error TS(\d+): (.*)$/gm)];
  return lines.map((m) => ({
    file: path.basename(m[1]),
    line: Number(m[2]),
    column: Number(m[3]),
    code: Number(m[4]),
    message: m[5],
  }));
}
