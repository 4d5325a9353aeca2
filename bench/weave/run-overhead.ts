// Run-time cost of weaving: the woven method against the hand-written one, on MemoryLockStore
// so no network noise hides a difference. Batches alternate (woven, hand, hand, woven, …) in
// one process, so both see the same JIT state, GC pressure and machine load; the figure is the
// median of the per-pair ratios.
import { configure, MemoryLockStore } from 'lockweave/runtime';
import { isOverheadWoven, OverheadService } from './overhead-tagged';
import { HandWrittenOverheadService } from './overhead-hand-written';

export interface OverheadResult {
  readonly woven: boolean;
  /** Nanoseconds per call, one entry per batch, in pair order. */
  readonly wovenNsPerCall: number[];
  readonly handNsPerCall: number[];
}

type Pay = (orderNo: string, amount: number) => Promise<number>;

async function batch(pay: Pay, calls: number, keys: readonly string[]): Promise<number> {
  let checksum = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) checksum += await pay(keys[i % keys.length], i);
  const elapsed = Number(process.hrtime.bigint() - started);
  if (checksum < 0) throw new Error('unreachable'); // keeps the result live
  return elapsed / calls;
}

export async function runWeaveOverhead(options: { batches: number; callsPerBatch: number }): Promise<OverheadResult> {
  configure({ store: new MemoryLockStore() });
  const woven = new OverheadService();
  const hand = new HandWrittenOverheadService();
  const wovenPay: Pay = (orderNo, amount) => woven.pay(orderNo, amount);
  const handPay: Pay = (orderNo, amount) => hand.pay(orderNo, amount);
  const keys = Array.from({ length: 64 }, (_, i) => `order-${i}`);

  // Warm both paths up before timing anything.
  await batch(wovenPay, options.callsPerBatch, keys);
  await batch(handPay, options.callsPerBatch, keys);

  const wovenNsPerCall: number[] = [];
  const handNsPerCall: number[] = [];
  for (let i = 0; i < options.batches; i++) {
    const wovenFirst = i % 2 === 0;
    const first = await batch(wovenFirst ? wovenPay : handPay, options.callsPerBatch, keys);
    const second = await batch(wovenFirst ? handPay : wovenPay, options.callsPerBatch, keys);
    wovenNsPerCall.push(wovenFirst ? first : second);
    handNsPerCall.push(wovenFirst ? second : first);
  }
  return { woven: isOverheadWoven(), wovenNsPerCall, handNsPerCall };
}
