// `npm run test:unit` only (ava.config.mjs loads this when LOCKWEAVE_TEST_SOURCE=1): the tests'
// `lockweave` and `lockweave/runtime` are the runtime's TypeScript sources (runtime/index.ts, run by
// ts-node) instead of the built package (dist/, which the package's exports name). The unit loop
// then needs no build, and never tests a dist/ older than the code being changed — the reason the
// fault suite transpiles runtime/ for its workers too (test/faults/support/compile-workers.ts).
// Every other run (npm test, test:all) tests the built package, as users get it.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const RUNTIME = path.join(__dirname, '..', '..', 'runtime', 'index.ts');
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveFromSource(request, ...rest) {
  if (request === 'lockweave' || request === 'lockweave/runtime') return RUNTIME;
  return resolve.call(this, request, ...rest);
};
