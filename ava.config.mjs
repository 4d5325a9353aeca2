// Tests are TypeScript run through ts-node in transpile-only mode: `npm test` type-checks
// the whole repo once with tsc before ava starts, so each worker need not do it again.
//
// test/topologies (Redis Cluster, Sentinel, Redlock's independent primaries) starts many servers
// per file and kills some of them: it runs on its own, once per server on one Node
// (scripts/test.sh sets LOCKWEAVE_TOPOLOGIES=1), not again on every Node line.
const topologies = process.env.LOCKWEAVE_TOPOLOGIES === '1';

export default {
  // Not the fixtures' own test files (jest's, vitest's), nor their copies under test/.tmp.
  files: topologies
    ? ['test/topologies/**/*.test.ts']
    : ['test/**/*.test.ts', '!test/topologies/**', '!test/fixtures/**', '!test/.tmp/**'],
  extensions: { ts: 'commonjs' },
  require: ['ts-node/register/transpile-only'],
  timeout: '120s',
  concurrency: 2,
  workerThreads: false,
  environmentVariables: { TS_NODE_PROJECT: 'tsconfig.json' },
};
