// Tests are TypeScript run through ts-node in transpile-only mode: `npm test` and `npm run test:all`
// type-check the whole repo once with tsc before ava starts, so each worker need not do it again.
// Which files each command runs is scripts/test-sets.sh's.
//
// test/topologies (Redis Cluster, Sentinel, Redlock's independent primaries) starts many servers
// per file and kills some of them: it runs on its own, once per server on one Node
// (scripts/test-all.sh sets LOCKWEAVE_TOPOLOGIES=1), not again on every Node line.
const topologies = process.env.LOCKWEAVE_TOPOLOGIES === '1';
// `npm run test:unit` (scripts/test-unit.sh) runs on the sources, with no build: see the helper.
const fromSource = process.env.LOCKWEAVE_TEST_SOURCE === '1';

export default {
  // Not the fixtures' own test files (jest's, vitest's), nor their copies under test/.tmp.
  files: topologies
    ? ['test/topologies/**/*.test.ts']
    : ['test/**/*.test.ts', '!test/topologies/**', '!test/fixtures/**', '!test/.tmp/**'],
  extensions: { ts: 'commonjs' },
  require: ['ts-node/register/transpile-only', ...(fromSource ? ['./test/helpers/lockweave-from-source.cjs'] : [])],
  timeout: '120s',
  concurrency: 2,
  workerThreads: false,
  environmentVariables: { TS_NODE_PROJECT: 'tsconfig.json' },
};
