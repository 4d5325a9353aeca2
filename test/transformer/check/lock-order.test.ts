// The lock-order check (transformer/check/lock-order.ts) on programs built in memory: a call from a
// locked body into another lock is an edge; an edge on a cycle is error 93029 at the call, naming
// the cycle and the call that closes it. In process, no compiler run.
import test from 'ava';
import type * as ts from 'typescript';
import { analyseFile, type FileAnalysis } from '../../../transformer/check/analyse';
import { lockOrder } from '../../../transformer/check/lock-order';
import { Code } from '../../../transformer/diagnostics';
import { programOf, tsApi } from '../../helpers/in-memory-program';

function orderOf(files: Record<string, string>) {
  const program = programOf(files);
  const checker = program.getTypeChecker();
  const cache = new Map<ts.SourceFile, FileAnalysis>();
  const analyse = (file: ts.SourceFile) => {
    if (!cache.has(file)) cache.set(file, analyseFile(tsApi, checker, file, {}));
    return cache.get(file)!;
  };
  const sources = Object.keys(files).map((name) => program.getSourceFile(name)!);
  for (const file of sources) if (analyse(file).errors.length) throw new Error(analyse(file).errors[0]!.message);
  const order = lockOrder(tsApi, checker, sources, analyse);
  const errors = [...order.errors.values()].flat();
  return { order, errors, sources };
}

const ORDERS = `import { Stock } from './stock';
export class Orders {
  constructor(private readonly stock: Stock) {}
  /** @redisLock businessFlag=payOrder keyName=no */
  async pay(no: string): Promise<void> { await this.stock.reserve(no); }
  /** @redisLock businessFlag=payOrder keyName=no */
  async refund(no: string): Promise<void> { void no; }
}
`;

test('two files, each lock taken inside the other: an error at both calls, naming the cycle and the other call', (t) => {
  const { order, errors, sources } = orderOf({
    '/virtual/orders.ts': ORDERS,
    '/virtual/stock.ts': `import { Orders } from './orders';
export class Stock {
  orders!: Orders;
  /** @redisLock businessFlag=stock keyName=sku */
  async reserve(sku: string): Promise<void> { void sku; }
  /** @redisLock businessFlag=stock keyName=sku */
  async restock(sku: string): Promise<void> { await Promise.all([sku].map((no) => this.orders.refund(no))); }
}
`,
  });
  t.deepEqual(
    order.edges.map((e) => `${e.from}→${e.to}`),
    ['payOrder→stock', 'stock→payOrder'],
  );
  t.deepEqual(order.cycles, [['payOrder', 'stock']]);
  t.deepEqual(
    errors.map((e) => e.code),
    [Code.LockOrderCycle, Code.LockOrderCycle],
  );
  const [atPay, atRestock] = errors;
  t.is(atPay!.span.file, sources[0]);
  t.is(ORDERS.slice(atPay!.span.start, atPay!.span.start + atPay!.span.length), 'this.stock.reserve(no)');
  t.regex(
    atPay!.message,
    /Orders\.pay holds payOrder and calls Stock\.reserve, which locks stock; Stock\.restock \(virtual\/stock\.ts:7\) holds stock while payOrder is taken: payOrder → stock → payOrder/,
  );
  t.regex(atRestock!.message, /Stock\.restock holds stock and calls Orders\.refund[\s\S]*stock → payOrder → stock/);
});

test('three locks in a ring are one cycle; a chain without the way back is no error', (t) => {
  const ring = (flag: string, next: string) => `
  /** @redisLock businessFlag=${flag} keyName=k */
  async ${flag}(k: string): Promise<void> { await this.${next}(k); }`;
  const cyclic = orderOf({
    '/virtual/ring.ts': `export class R {${ring('a', 'b')}${ring('b', 'c')}${ring('c', 'a')}\n}\n`,
  });
  t.deepEqual(cyclic.order.cycles, [['a', 'b', 'c']]);
  t.is(cyclic.errors.length, 3);
  const chain = orderOf({
    '/virtual/chain.ts': `export class R {${ring('a', 'b')}${ring('b', 'c')}
  /** @redisLock businessFlag=c keyName=k */
  async c(k: string): Promise<void> { void k; }
}
`,
  });
  t.is(chain.order.edges.length, 2);
  t.deepEqual(chain.order.cycles, []);
  t.deepEqual(chain.errors, []);
});

test('a call on the same lock is reentrancy, not a cycle; an imported function and another prefix are locks of their own', (t) => {
  const { order, errors } = orderOf({
    '/virtual/jobs.ts': `import { audit } from './audit';
export class Jobs {
  /** @redisLock businessFlag=job keyName=k */
  async run(k: string): Promise<void> { await this.again(k); await audit(k); }
  /** @redisLock businessFlag=job keyName=k */
  async again(k: string): Promise<void> { void k; }
  /** @redisLock businessFlag=job keyName=k prefix=OTHER_ */
  async other(k: string): Promise<void> { await this.run(k); }
}
`,
    '/virtual/audit.ts': `/** @redisLock businessFlag=audit keyName=k */
export async function audit(k: string): Promise<void> { void k; }
`,
  });
  t.deepEqual(
    order.edges.map((e) => `${e.from}→${e.to}`),
    ['job→audit', 'OTHER_job→job'],
  );
  t.deepEqual(errors, []);
});
