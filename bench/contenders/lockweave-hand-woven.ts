// The code the transformer emits for BenchService.critical (lockweave-tagged.ts), written by
// hand: defineLock() once at module load, then one run() call around the body.
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
    // onFail is `throw`, so run() never resolves undefined here.
    return (await critical_lock_1.run(key, async () => {
      return body();
    }))!;
  }
}
