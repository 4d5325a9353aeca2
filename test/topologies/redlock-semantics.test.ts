// The lock's promises (lock-semantics.ts) on Redlock over 3 independent primaries, chosen by
// configure({ defaults: { redlock: true } }). The key is "held" when a majority of the servers
// hold the token; a TTL is the longest of theirs. Every shared promise holds as it stands: within a
// process, waiters still go in turn (the lease wakes its successor when a release frees the key);
// only fairness across processes, which no shared test covers, is not promised on Redlock; and it
// offers no fencing tokens (a lock that asks for them is refused).
import test from 'ava';
import { configure, type LockEvent } from 'lockweave';
import { usePrimaries } from '../helpers/redis-primaries';
import { lockSemantics } from '../runtime/lock-semantics';

const events: LockEvent[] = [];
// The single server is one nobody listens on: a lock that went there instead would fail.
const fixture = usePrimaries(test, 3, ({ urls }) =>
  configure({
    redis: 'redis://127.0.0.1:1',
    redlock: urls,
    defaults: { redlock: true },
    logger: (event) => events.push(event),
  }),
);

lockSemantics(
  test,
  () => ({
    async holder(key) {
      const tokens = await Promise.all(fixture.primaries.clients.map((client) => client.get(key)));
      return tokens.find((token) => token !== null && tokens.filter((other) => other === token).length >= 2) ?? null;
    },
    async pttl(key) {
      return Math.max(...(await Promise.all(fixture.primaries.clients.map((client) => client.pttl(key)))));
    },
    events,
  }),
  { fencing: false, line: false },
);
