// The code the transformer emits for BenchService.critical (lockweave-tagged.ts), written by
// hand: defineLock() once at module load, then acquire / try / finally around the body.
// Used when the transformer is not available, and to check the woven output costs no more.
import { defineLock } from 'lockweave/runtime';

const critical_lock_1 = defineLock({
  site: 'BenchService.critical',
  businessFlag: 'bench',
  lockTime: 30000,
  retries: 200,
  waitTime: 100,
});

export class HandWovenBenchService {
  async critical<T>(key: string, body: () => Promise<T>): Promise<T> {
    const lease_1 = await critical_lock_1.acquire(key);
    try {
      return await lease_1.run(async () => {
        return body();
      });
    } finally {
      await lease_1.release();
    }
  }
}
