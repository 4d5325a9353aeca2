// A synthetic project for timing the compiler: `files` modules, each a service class with
// `methodsPerFile` tagged async methods in the shapes users write (a plain key, a dotted path
// into a parameter, a composite key, options), plus types shared across files so the
// checker has real work to do. Written to bench/.tmp, never committed.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface GeneratedProject {
  readonly dir: string;
  /** tsconfig with the lockweave plugin, and the same without it. */
  readonly withPlugin: string;
  readonly withoutPlugin: string;
  readonly taggedMethods: number;
}

const TAGS = [
  (i: number) => `/** @redisLock businessFlag=pay${i} keyName=orderNo */\n  async pay${i}(orderNo: string, amount: number): Promise<number> {\n    return amount + orderNo.length;\n  }`,
  (i: number) => `/** @redisLock businessFlag=ship${i} keyName=order.orderNo lockTime=20s */\n  async ship${i}(order: Order): Promise<string> {\n    return order.orderNo + order.userNo;\n  }`,
  (i: number) =>
    `/**\n   * Refunds one order line.\n   * @redisLock businessFlag=refund${i} keyName=order.userNo,order.orderNo\n   *   retries=5 waitTime=200ms\n   */\n  async refund${i}(order: Order, line: OrderLine): Promise<OrderLine> {\n    return { ...line, quantity: line.quantity - 1 };\n  }`,
  (i: number) => `/** @redisLock businessFlag=count${i} keyName=userId onFail=skip */\n  async count${i}(userId: number): Promise<number | undefined> {\n    return userId * 2;\n  }`,
  (i: number) => `/** @redisLock businessFlag=audit${i} keyName=entry.id lockTime=500ms watchdog=false */\n  async audit${i}(entry: AuditEntry): Promise<void> {\n    if (entry.id < 0) throw new Error('negative');\n  }`,
];

const SHARED_TYPES = `export interface Order { orderNo: string; userNo: string; lines: OrderLine[] }
export interface OrderLine { sku: string; quantity: number; price: number }
export interface AuditEntry { id: number; at: Date; note?: string }
`;

export function generateProject(root: string, files: number, methodsPerFile: number, transformPath: string): GeneratedProject {
  rmSync(root, { recursive: true, force: true });
  const src = join(root, 'src');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'types.ts'), SHARED_TYPES);
  let taggedMethods = 0;
  for (let f = 0; f < files; f++) {
    const methods: string[] = [];
    for (let m = 0; m < methodsPerFile; m++) {
      methods.push(TAGS[(f + m) % TAGS.length](m));
      taggedMethods++;
    }
    // Each service also leans on the previous one, so files are not checked in isolation.
    const previous = f > 0 ? `import { Service${f - 1} } from './service-${f - 1}';\n` : '';
    const helper = f > 0 ? `  readonly previous = new Service${f - 1}();\n` : '';
    writeFileSync(
      join(src, `service-${f}.ts`),
      `import type { AuditEntry, Order, OrderLine } from './types';\n${previous}\nexport class Service${f} {\n${helper}  ${methods.join('\n\n  ')}\n}\n`,
    );
  }
  const compilerOptions = {
    target: 'ES2022',
    module: 'node16',
    moduleResolution: 'node16',
    strict: true,
    skipLibCheck: true,
    types: [],
    rootDir: 'src',
    outDir: 'out',
  };
  const withPlugin = join(root, 'tsconfig.plugin.json');
  const withoutPlugin = join(root, 'tsconfig.plain.json');
  // The transform by path: see bench/tsconfig.json for why not `lockweave/transformer`.
  const plugins = [{ transform: relative(root, transformPath) }];
  writeFileSync(withPlugin, JSON.stringify({ compilerOptions: { ...compilerOptions, plugins }, include: ['src'] }, null, 2));
  writeFileSync(withoutPlugin, JSON.stringify({ compilerOptions, include: ['src'] }, null, 2));
  return { dir: root, withPlugin, withoutPlugin, taggedMethods };
}
