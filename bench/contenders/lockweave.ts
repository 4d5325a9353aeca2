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

/**
 * The same, with reentrant=false. On Node 20, AsyncLocalStorage (which reentrancy needs) makes
 * every promise in the process slower once used; this contender shows that cost apart. Each
 * measured run is its own process, so the default contender's AsyncLocalStorage does not leak in.
 */
export function createLockweaveNotReentrant(): Contender {
  const service = new BenchService();
  return {
    name: 'lockweave reentrant=false',
    settings: `configure({ redis: client }); @redisLock ${TAGGED_SETTINGS.replace('reentrant=true', 'reentrant=false')}; woven by tspc`,
    async setup(client) {
      if (!isWoven())
        throw new Error('the reentrant=false contender needs the woven build (npm run bench builds it with tspc)');
      configure({ redis: client });
    },
    lock(key, body) {
      return service.criticalNotReentrant(key, body);
    },
    async teardown() {
      await close();
    },
  };
}
