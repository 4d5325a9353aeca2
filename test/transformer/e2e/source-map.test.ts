// Source maps of woven files: the statements of a locked body move into an arrow function, and
// each must still map to the line and column where the user wrote it, so that stack traces and
// breakpoints land in the .ts file. The map is decoded here (base64 VLQ), no library needed.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, TMP, linkPackage } from '../../helpers/fixture-projects';
import { tspc } from '../../helpers/tspc';

const OUT = path.join(TMP, 'source-map');
const SOURCE = path.join(FIXTURES, 'source-map', 'src', 'ledger.ts');

/** One decoded segment: generated column → source index, line and column (all 0-based). */
interface Segment {
  column: number;
  source: number;
  line: number;
  sourceColumn: number;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeVlq(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64.indexOf(char);
    if (digit < 0) throw new Error(`not base64: ${char}`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/** Segments per generated line; fields after the first are relative to the previous segment. */
function decodeMappings(mappings: string): Segment[][] {
  let source = 0;
  let line = 0;
  let sourceColumn = 0;
  return mappings.split(';').map((group) => {
    let column = 0;
    const segments: Segment[] = [];
    for (const part of group.split(',').filter(Boolean)) {
      const fields = decodeVlq(part);
      column += fields[0];
      if (fields.length < 4) continue;
      source += fields[1];
      line += fields[2];
      sourceColumn += fields[3];
      segments.push({ column, source, line, sourceColumn });
    }
    return segments;
  });
}

/** 0-based line and column of the first occurrence of `text`. */
function find(lines: readonly string[], text: string): { line: number; column: number } {
  const line = lines.findIndex((l) => l.includes(text));
  if (line < 0) throw new Error(`"${text}" not found`);
  return { line, column: lines[line].indexOf(text) };
}

let js: string[];
let segments: Segment[][];
let ts: string[];

test.before(() => {
  linkPackage();
  fs.rmSync(OUT, { recursive: true, force: true });
  const result = tspc(['-p', path.join(FIXTURES, 'source-map')]);
  if (result.status !== 0) throw new Error(result.output);
  const map = JSON.parse(fs.readFileSync(path.join(OUT, 'ledger.js.map'), 'utf8')) as {
    sources: string[];
    mappings: string;
  };
  if (path.resolve(OUT, map.sources[0]) !== SOURCE) throw new Error(`map names ${map.sources[0]}`);
  js = fs.readFileSync(path.join(OUT, 'ledger.js'), 'utf8').split('\n');
  ts = fs.readFileSync(SOURCE, 'utf8').split('\n');
  segments = decodeMappings(map.mappings);
});

const STATEMENTS = [
  'const before = this.balances.get(entry.account) ?? 0;',
  'const after = before + entry.amount;',
  'this.balances.set(entry.account, after);',
  'return after;',
  'const closed = `closed ${account}`;',
  'return closed;',
];

test("the methods are woven (acquire, then the body in the lease's run inside try / finally)", (t) => {
  t.true(js.some((l) => l.includes('const lease_1 = await post_lock_1.acquire(entry?.account);')));
  t.true(js.some((l) => l.includes('const lease_1 = await close_lock_1.acquire(account);')));
  const run = find(js, 'post_lock_1.acquire(').line;
  t.true(find(js, STATEMENTS[0]).line > run, 'the first statement moved into the arrow');
});

for (const statement of STATEMENTS) {
  test(`a moved statement maps to its own line and column: ${statement}`, (t) => {
    const generated = find(js, statement);
    const original = find(ts, statement);
    const segment = segments[generated.line]?.find((s) => s.column === generated.column);
    t.truthy(segment, `no mapping at ledger.js:${generated.line + 1}:${generated.column + 1}`);
    t.deepEqual(
      { line: segment!.line + 1, column: segment!.sourceColumn + 1 },
      { line: original.line + 1, column: original.column + 1 },
    );
  });
}
