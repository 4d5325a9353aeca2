// Tests are TypeScript run through ts-node in transpile-only mode: `npm test` type-checks
// the whole repo once with tsc before ava starts, so each worker need not do it again.
export default {
  // Not the fixtures' own test files (jest's, vitest's), nor their copies under test/.tmp.
  files: ['test/**/*.test.ts', '!test/fixtures/**', '!test/.tmp/**'],
  extensions: { ts: 'commonjs' },
  require: ['ts-node/register/transpile-only'],
  timeout: '120s',
  concurrency: 2,
  workerThreads: false,
  environmentVariables: { TS_NODE_PROJECT: 'tsconfig.json' },
};
