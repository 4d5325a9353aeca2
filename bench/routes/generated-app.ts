// The project the route benches measure: 100 .ts modules, 10 of them with a tagged method, and an
// app.ts that imports them all — generated, so its size is a number in the bench's output.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installLockweave } from '../installed-package';
import { processCpuMs } from '../machine';

export const MODULES = 100;
export const TAGGED_EVERY = 10;

export interface GeneratedApp {
  /** Written as the app's package.json. */
  readonly packageJson: object;
  readonly compilerOptions?: object;
  /** How app.ts names a module: `./module1.ts` for Node's type stripping, `./module1` for bundlers. */
  readonly importExtension: '.ts' | '';
  /** Statements after the imports; `services` holds one instance of each module's class. */
  readonly appTail: string;
}

/** Writes the project into `dir` (emptied first), with `lockweave/...` resolving to this repo's dist. */
export function writeGeneratedApp(dir: string, app: GeneratedApp): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(app.packageJson)}\n`);
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...app.compilerOptions, plugins: [{ transform: 'lockweave/transformer' }] },
    }),
  );
  const imports: string[] = [];
  for (let i = 0; i < MODULES; i++) {
    fs.writeFileSync(path.join(dir, `module${i}.ts`), moduleSource(i));
    imports.push(`import { Service${i} } from './module${i}${app.importExtension}';`);
  }
  const services = Array.from({ length: MODULES }, (_, i) => `new Service${i}()`).join(', ');
  fs.writeFileSync(
    path.join(dir, 'app.ts'),
    `${imports.join('\n')}\nconst services: unknown[] = [${services}];\n${app.appTail}`,
  );
  installLockweave(dir);
}

function moduleSource(index: number): string {
  const tagged = index % TAGGED_EVERY === 0;
  return `export interface Order${index} { readonly orderNo: string; readonly lines: readonly { sku: string; qty: number }[] }
export type Status${index} = 'open' | 'paid' | 'shipped';

export class Service${index} {
  private readonly seen = new Map<string, Status${index}>();

  total(order: Order${index}): number {
    return order.lines.reduce((sum: number, line: { qty: number }) => sum + line.qty, 0);
  }

  status(orderNo: string): Status${index} {
    return this.seen.get(orderNo) ?? 'open';
  }
${
  tagged
    ? `
  /** @redisLock businessFlag=pay${index} keyName=order.orderNo */
  async pay(order: Order${index}): Promise<Status${index}> {
    this.seen.set(order.orderNo, 'paid');
    return 'paid';
  }
`
    : ''
}
  async ship<T extends Order${index}>(order: T): Promise<T> {
    this.seen.set(order.orderNo, 'shipped');
    return order;
  }
}
`;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Runs `run` (a build or a start in a child process), adding the CPU its processes used to
 * `cpuMs[way]` (undefined once a reading fails), and returns what it returned. Summed per way, the
 * CPU gives a ratio steadier than wall time on a machine shared with other work (one 10 ms tick's
 * error per reading, ~1% over 11 runs of 100 ms).
 */
export function withChildrenCpu<T>(cpuMs: Record<string, number | undefined>, way: string, run: () => T): T {
  const before = processCpuMs('self', 'endedChildren');
  const result = run();
  const after = processCpuMs('self', 'endedChildren');
  cpuMs[way] = before === undefined || after === undefined ? undefined : (cpuMs[way] ?? 0) + after - before;
  return result;
}

/** The ratio of two ways' summed CPU, as text; '—' when either was not read. */
export function cpuRatio(cpu: Record<string, number | undefined>, way: string, to: string): string {
  const a = cpu[way];
  const b = cpu[to];
  return a === undefined || b === undefined || b === 0 ? '—' : `${(a / b).toFixed(2)}x`;
}

/** One way of starting an app: Node's arguments before the entry, and the environment on top of ours. */
export interface StartWay {
  readonly args: string[];
  readonly env: Record<string, string>;
}

/**
 * Starts `node ...args entry` in `dir` for each way: once each to warm the OS file cache (and any
 * cache of the way's own), then `rounds` times in alternating order, so a slow moment of the machine
 * does not fall on one way only. Each start must print MODULES. The wall times, in ms, per way.
 */
export function timeStarts(
  node: string,
  dir: string,
  entry: string,
  ways: Record<string, StartWay>,
  rounds: number,
): { times: Record<string, number[]>; cpuMs: Record<string, number | undefined> } {
  const startOnce = ({ args, env }: StartWay): number => {
    const started = process.hrtime.bigint();
    const result = spawnSync(node, [...args, entry], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: '', NODE_COMPILE_CACHE: '', ...env },
      encoding: 'utf8',
    });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0 || result.stdout.trim() !== String(MODULES)) {
      throw new Error(`${args.join(' ')} ${entry} failed (${result.status}): ${result.stdout}${result.stderr}`);
    }
    return elapsed;
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  const cpuMs: Record<string, number | undefined> = Object.fromEntries(Object.keys(ways).map((name) => [name, 0]));
  for (const way of Object.values(ways)) startOnce(way);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? Object.keys(ways) : Object.keys(ways).reverse();
    for (const name of order) times[name].push(withChildrenCpu(cpuMs, name, () => startOnce(ways[name])));
  }
  return { times, cpuMs };
}
