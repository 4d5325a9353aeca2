// One call whose caller awaits Redis's answer outside a locked call's acquisition, in a process that
// does nothing else: argv[2] `inspect` (inspect() on argv[3], a URL where nothing answers) or `extend`
// (a lease taken on argv[3], a real Redis, extended while the server is paused for 3 s by
// CLIENT PAUSE). The call must settle — "settled <how>" — before the process exits by itself.
// `nested-never` (argv[3] a real Redis): a body starts a nested call of its key that never ends and
// does not await it; its release waits for it, for ever, without holding the process, which exits
// by itself as one awaiting a promise that never settles does ("body ended" printed first).
const { configure, defineLock, inspect, withLock } = require('lockweave');
const { Redis } = require('ioredis');

const [kind, url] = process.argv.slice(2);
configure({ redis: url });
const report = (promise) =>
  promise.then(
    () => process.stdout.write('settled ok\n'),
    (error) => process.stdout.write(`settled ${error.name}\n`),
  );

if (kind === 'nested-never') {
  const request = { businessFlag: 'awaited', key: 'nested', lockTime: 3_000, retries: 0 };
  withLock(request, async () => {
    withLock(request, () => new Promise(() => undefined));
    process.stdout.write('body ended\n');
  });
} else if (kind === 'inspect') {
  report(inspect({ businessFlag: 'awaited', key: 'A' }));
} else {
  const lock = defineLock({ businessFlag: 'awaited', lockTime: 10_000, retries: 0 });
  lock.acquire('A').then(async (lease) => {
    const pauser = new Redis(url);
    await pauser.call('CLIENT', 'PAUSE', '3000', 'ALL');
    pauser.disconnect();
    await report(lease.extend(20_000));
    await lease.release().catch(() => undefined);
  });
}
