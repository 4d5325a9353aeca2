// Prints one method of a source or compiled file, and with --with-specs the module-level
// defineLock() lines of the woven file, so the demo can show source and woven code side by side.
'use strict';
const fs = require('node:fs');

const [file, method, flag] = process.argv.slice(2);
const lines = fs.readFileSync(file, 'utf8').split('\n');
const out = [];
if (flag === '--with-specs') {
  for (const line of lines) if (/^(import|const .*require|const .*defineLock)/.test(line)) out.push(line);
  out.push('...');
}
const start = lines.findIndex((line) => new RegExp(`^\\s*(async\\s+)?${method}\\(`).test(line));
if (start < 0) throw new Error(`no method ${method} in ${file}`);
let first = start;
while (first > 0 && /^\s*(\/\*\*|\*)/.test(lines[first - 1])) first--;
const indent = lines[start].match(/^\s*/)[0];
let end = start;
while (end < lines.length - 1 && lines[end] !== `${indent}}`) end++;
out.push(...lines.slice(first, end + 1));
console.log(out.map((line) => `   ${line}`).join('\n'));
