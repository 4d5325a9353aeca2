// What the runtime's check for TypeScript run without a route (runtime/base/loaded-typescript.ts)
// adds to the start of a built app — a JavaScript entry, 100 modules, lockweave's runtime — on Node 24:
//
//   npx ts-node --transpile-only bench/routes/runtime-load.ts   (BENCH_ROUNDS=n, default 7)
//
//   marked         a preload sets the mark a route sets, so the runtime skips the check: the baseline
//   js             node main.cjs                        require.cache and Node's records; a load hook
//   compile-cache  NODE_COMPILE_CACHE=… node main.cjs   the same, and the scan of V8's parsed scripts
//   import-preload node --import ./preload.mjs main.cjs a loader flag: the scan too
// Prints the medians and the ratios to marked. Not a test: timings depend on the machine.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installLockweave } from '../installed-package';
import { cpuRatio, MODULES, type StartWay, median, timeStarts } from './generated-app';

const ROOT = path.resolve(path.dirname(process.argv[1]), '..', '..');
const APP_DIR = path.join(ROOT, 'bench', '.tmp', 'routes', 'runtime-load');
const NODE = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const REPETITIONS = Number(process.env.BENCH_ROUNDS ?? 7);

function writeApp(): void {
  fs.rmSync(APP_DIR, { recursive: true, force: true });
  installLockweave(APP_DIR);
  const requires: string[] = [];
  for (let i = 0; i < MODULES; i++) {
    fs.writeFileSync(path.join(APP_DIR, `module${i}.cjs`), `exports.value${i} = () => ${i};\n`);
    requires.push(`require('./module${i}.cjs');`);
  }
  fs.writeFileSync(
    path.join(APP_DIR, 'main.cjs'),
    `require('lockweave');\n${requires.join('\n')}\nconsole.log(${MODULES});\n`,
  );
  fs.writeFileSync(
    path.join(APP_DIR, 'mark.cjs'),
    "globalThis[Symbol.for('lockweave.weavesTypeScript')] = [{ files: new Set(), seesEveryFile: () => true }];\n",
  );
  fs.writeFileSync(path.join(APP_DIR, 'preload.mjs'), 'export {};\n');
}

function main(): void {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'runtime', 'index.js'))) {
    throw new Error('build first: npx tsc -p tsconfig.build.json');
  }
  writeApp();
  const ways: Record<string, StartWay> = {
    marked: { args: ['--require', './mark.cjs'], env: {} },
    js: { args: [], env: {} },
    'compile-cache': { args: [], env: { NODE_COMPILE_CACHE: path.join(APP_DIR, '.compile-cache') } },
    'import-preload': { args: ['--import', './preload.mjs'], env: {} },
  };
  // The first start of each also fills the compile cache.
  const { times, cpuMs } = timeStarts(NODE, APP_DIR, 'main.cjs', ways, REPETITIONS);
  const version = spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(
    `start of a built app (${MODULES} modules and lockweave's runtime), Node ${version}, median of ${REPETITIONS}:`,
  );
  for (const name of Object.keys(ways)) {
    const extra =
      name === 'marked'
        ? ''
        : `  ${(median(times[name]) / median(times.marked)).toFixed(2)}x marked, CPU ${cpuRatio(cpuMs, name, 'marked')}`;
    console.log(
      `  ${name.padEnd(15)} ${median(times[name]).toFixed(0).padStart(5)} ms${extra}   (${times[name].map((t) => t.toFixed(0)).join(', ')})`,
    );
  }
}

main();
