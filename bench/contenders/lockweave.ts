// lockweave on the bench's ioredis client: configure({ redis: client }) — the client stays the
// caller's, as for every other contender. Runs the tspc-woven BenchService when the build wove
// it, else the hand-woven twin, and says which in its name.
import { close, configure } from 'lockweave/runtime';
import { BenchService, isWoven, TAGGED_SETTINGS } from './lockweave-tagged';
import { HandWovenBenchService } from './lockweave-hand-woven';
import type { Contender } from './contender';

export function createLockweave(): Contender {
  const woven = isWoven();
  const service = woven ? new BenchService() : new HandWovenBenchService();
  return {
    name: woven ? 'lockweave' : 'lockweave (hand-woven)',
    settings: `configure({ redis: client }); @redisLock ${TAGGED_SETTINGS}; ${woven ? 'woven by tspc' : 'transformer unavailable: hand-woven equivalent'}`,
    async setup(client) {
      configure({ redis: client });
    },
    lock(key, body) {
      return service.critical(key, body);
    },
    async teardown() {
      await close();
    },
  };
}
