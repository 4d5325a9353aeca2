// The woven side of the run-time overhead check: a tagged method with a small body.
// Compare overhead-hand-written.ts, which wraps the same body in the same runtime calls.
export class OverheadService {
  /** @redisLock businessFlag=overhead keyName=orderNo lockTime=30s retries=3 waitTime=100ms */
  async pay(orderNo: string, amount: number): Promise<number> {
    return amount + orderNo.length;
  }
}

export function isOverheadWoven(): boolean {
  return /await \w+_lock_1\.acquire\(/.test(OverheadService.prototype.pay.toString());
}
