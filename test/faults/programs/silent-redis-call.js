// One locked call on a Redis that never answers, in a process that does nothing else and never
// calls close(): argv[2] `url` (configure({ redis: URL }): the runtime opens the client) or
// `cluster` (a user's ioredis Cluster, argv[4] its options as JSON), argv[3] the address (a URL, or
// JSON startup nodes). The call must settle — "LockAcquireError <ms>" — before the process exits,
// and the process must then exit by itself.
const { configure, defineLock } = require('lockweave');

const [kind, address, options] = process.argv.slice(2);
if (kind === 'url') {
  configure({ redis: address });
} else {
  const { Cluster } = require('ioredis');
  const parsed = JSON.parse(options ?? '{}');
  if (parsed.clusterRetryStrategy === null) parsed.clusterRetryStrategy = () => null;
  const cluster = new Cluster(JSON.parse(address), {
    ...parsed,
    redisOptions: { autoResendUnfulfilledCommands: false },
  });
  cluster.on('error', () => undefined);
  configure({ redis: cluster });
}
const lock = defineLock({ businessFlag: 'silent', retries: 1, waitTime: 300 });
const startedAt = Date.now();
lock.acquire('A').then(
  () => process.stdout.write('acquired?\n'),
  (error) => process.stdout.write(`${error.name} ${Date.now() - startedAt}\n`),
);
