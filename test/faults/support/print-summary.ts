// Prints the table of test/.tmp/faults-summary.jsonl (run by scripts/test-faults.sh after ava).
import { existsSync, readFileSync } from 'node:fs';
import { SUMMARY_FILE } from './paths';
import type { CaseSummary } from './summary';

function main(): void {
  if (!existsSync(SUMMARY_FILE)) {
    console.log('faults: no summary recorded (did any case run?)');
    return;
  }
  const rows = readFileSync(SUMMARY_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CaseSummary);
  const header = ['case', 'faults', 'ops', 'lost updates', 'overlaps', 'seconds'];
  const table = rows.map((row) => [
    row.case.length > 90 ? `${row.case.slice(0, 87)}...` : row.case,
    String(row.faults),
    String(row.operations),
    String(row.lostUpdates ?? '-'),
    String(row.overlaps ?? '-'),
    (row.durationMs / 1000).toFixed(1),
  ]);
  const total = (pick: (row: CaseSummary) => number | undefined) =>
    String(rows.reduce((sum, row) => sum + (pick(row) ?? 0), 0));
  table.push([
    `TOTAL (${rows.length} cases)`,
    total((row) => row.faults),
    total((row) => row.operations),
    total((row) => row.lostUpdates),
    total((row) => row.overlaps),
    '',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join(' | ');
  console.log('\nfault-injection summary');
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
  for (const row of table.slice(0, -1)) console.log(line(row));
  console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
  console.log(line(table[table.length - 1]!));
  for (const row of rows) if (row.notes) console.log(`  - ${row.case.slice(0, 60)}: ${row.notes}`);
}

main();
