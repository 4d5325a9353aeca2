// Replaces dist/runtime/index.js, tsc's entry of ~75 CommonJS files, with one file holding them all.
//
// Why: the runtime loads in every process that has a lock, at its start. Node resolves, reads and
// wraps each CommonJS file on its own; for the runtime's files that took ~25 ms of a start, one file
// ~10 ms (Node 24, bench/history.md). The bundle is built from tsc's CommonJS output, not from the
// sources: each file stays a CommonJS module evaluated when first required, so what runs, and in
// which order, is what ran from the separate files. Packages (ioredis, uuid) and Node's own
// modules stay outside it, still loaded where they were (ioredis and node:crypto at a first lock).
//
// The other files of dist/runtime stay: the transformer and the command line import some of them
// (the options' table, the key names). The runtime's state (its connection, the held locks) lives in
// the bundle only — what a process shares with the transformer's copies, the mark of a route
// (base/weave-mark.ts), lives on globalThis and a named diagnostics channel, not in a module.
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const entry = path.join(__dirname, '..', 'dist', 'runtime', 'index.js');
esbuild.buildSync({
  entryPoints: [entry],
  outfile: entry,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  // Maps a stack to the TypeScript through tsc's maps of each file.
  sourcemap: true,
  logLevel: 'warning',
});
