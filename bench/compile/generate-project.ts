// A synthetic project for timing the compiler: `files` modules, each a service class with
// `methodsPerFile` async methods in the shapes users write (a plain key, a dotted path into a
// parameter, a composite key, options), plus types shared across files so the checker has real
// work to do. `taggedMethods` of them, spread evenly over the files, carry the lock tag; the rest
// carry an ordinary JSDoc comment, as documented code does, so both builds parse and check the
// same code and differ only in the tags. Written to bench/.tmp, never committed.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { installLockweave } from '../installed-package';

export interface ProjectShape {
  readonly files: number;
  readonly methodsPerFile: number;
  /** At most files × methodsPerFile. */
  readonly taggedMethods: number;
}

export interface GeneratedProject {
  readonly dir: string;
  /** The project's tsconfig.json, with the lockweave plugin; and a config without it, in builds/. */
  readonly withPlugin: string;
  readonly withoutPlugin: string;
  /** The same with reading-floor.ts as its plugin: re-reads the tagged files' JSDoc, nothing else. */
  readonly withReadingFloor: string;
  readonly taggedMethods: number;
}

interface MethodShape {
  readonly tag: (i: number) => string;
  readonly doc: (i: number) => string;
  readonly code: (i: number) => string;
}

const METHODS: readonly MethodShape[] = [
  {
    tag: (i) => `/** @redisLock businessFlag=pay${i} keyName=orderNo */`,
    doc: (i) => `/** Pays order ${i}. */`,
    code: (i) =>
      `async pay${i}(orderNo: string, amount: number): Promise<number> {\n    return amount + orderNo.length;\n  }`,
  },
  {
    tag: (i) => `/** @redisLock businessFlag=ship${i} keyName=order.orderNo lockTime=20s */`,
    doc: (i) => `/** Ships order ${i}. */`,
    code: (i) => `async ship${i}(order: Order): Promise<string> {\n    return order.orderNo + order.userNo;\n  }`,
  },
  {
    tag: (i) =>
      `/**\n   * Refunds one order line.\n   * @redisLock businessFlag=refund${i} keyName=order.userNo,order.orderNo\n   *   retries=5 waitTime=200ms\n   */`,
    doc: () => `/**\n   * Refunds one order line.\n   * @param order the order\n   */`,
    code: (i) =>
      `async refund${i}(order: Order, line: OrderLine): Promise<OrderLine> {\n    return { ...line, quantity: line.quantity - 1 };\n  }`,
  },
  {
    tag: (i) => `/** @redisLock businessFlag=count${i} keyName=userId onFail=skip */`,
    doc: (i) => `/** Counts for user ${i}. */`,
    code: (i) => `async count${i}(userId: number): Promise<number | undefined> {\n    return userId * 2;\n  }`,
  },
  {
    tag: (i) => `/** @redisLock businessFlag=audit${i} keyName=entry.id lockTime=500ms watchdog=false */`,
    doc: (i) => `/** Audits entry ${i}. */`,
    code: (i) =>
      `async audit${i}(entry: AuditEntry): Promise<void> {\n    if (entry.id < 0) throw new Error('negative');\n  }`,
  },
];

const SHARED_TYPES = `export interface Order { orderNo: string; userNo: string; lines: OrderLine[] }
export interface OrderLine { sku: string; quantity: number; price: number }
export interface AuditEntry { id: number; at: Date; note?: string }
`;

export function generateProject(root: string, shape: ProjectShape, readingFloorPath: string): GeneratedProject {
  rmSync(root, { recursive: true, force: true });
  const src = join(root, 'src');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'types.ts'), SHARED_TYPES);
  const total = shape.files * shape.methodsPerFile;
  // Method n is tagged when it crosses the next multiple of total/taggedMethods: evenly spread.
  const isTagged = (n: number) =>
    Math.floor(((n + 1) * shape.taggedMethods) / total) > Math.floor((n * shape.taggedMethods) / total);
  let taggedMethods = 0;
  for (let f = 0; f < shape.files; f++) {
    const methods: string[] = [];
    for (let m = 0; m < shape.methodsPerFile; m++) {
      const method = METHODS[(f + m) % METHODS.length];
      const tagged = isTagged(f * shape.methodsPerFile + m);
      methods.push(`${tagged ? method.tag(m) : method.doc(m)}\n  ${method.code(m)}`);
      if (tagged) taggedMethods++;
    }
    // Each service also leans on the previous one, so files are not checked in isolation.
    const previous = f > 0 ? `import { Service${f - 1} } from './service-${f - 1}';\n` : '';
    const helper = f > 0 ? `  readonly previous = new Service${f - 1}();\n` : '';
    writeFileSync(
      join(src, `service-${f}.ts`),
      `import type { AuditEntry, Order, OrderLine } from './types';\n${previous}\nexport class Service${f} {\n${helper}  ${methods.join('\n\n  ')}\n}\n`,
    );
  }
  // The project's own tsconfig.json carries the plugin entry, named as users write it (an entry by
  // path is not read as lockweave's: bench/installed-package.ts). The check tspc runs for the other
  // routes (transformer/nearest-entry.ts) reads the nearest tsconfig.json and the tsconfig.*.json
  // beside it, so the plain and reading-floor builds' configs sit in a folder of their own.
  const compilerOptions = (dir: string) => ({
    target: 'ES2022',
    module: 'node16',
    moduleResolution: 'node16',
    strict: true,
    skipLibCheck: true,
    types: [],
    rootDir: relative(dir, src),
    outDir: relative(dir, join(root, 'out')),
  });
  const writeConfig = (file: string, transform?: string) => {
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true });
    const plugins = transform ? { plugins: [{ transform }] } : {};
    writeFileSync(
      file,
      JSON.stringify(
        { compilerOptions: { ...compilerOptions(dir), ...plugins }, include: [relative(dir, src)] },
        null,
        2,
      ),
    );
    return file;
  };
  // As a user's project has it: a package.json, and lockweave installed (bench/installed-package.ts).
  writeFileSync(join(root, 'package.json'), `${JSON.stringify({ name: 'compile-bench', private: true })}\n`);
  installLockweave(root);
  const withPlugin = writeConfig(join(root, 'tsconfig.json'), 'lockweave/transformer');
  const builds = join(root, 'builds');
  const withoutPlugin = writeConfig(join(builds, 'tsconfig.plain.json'));
  const withReadingFloor = writeConfig(join(builds, 'tsconfig.reading-floor.json'), relative(builds, readingFloorPath));
  return { dir: root, withPlugin, withoutPlugin, withReadingFloor, taggedMethods };
}
