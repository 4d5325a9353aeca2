// What lockweave/register adds to the start of an app run by Node's own type stripping (Node 24).
//
//   npx ts-node --transpile-only bench/routes/loader-overhead.ts
//
// A generated app of 100 .ts modules, 10 of them with a tagged method, started (to exit, no
// method called, no Redis needed) 7 times each way, alternating:
//   plain          node app.ts                               no lock at all (types stripped)
//   register       node --import lockweave/register app.ts   the loader route, woven files cached
//   register-cold  the same with LOCKWEAVE_CACHE=off         every start weaves (loads TypeScript)
//   hook-floor     node --import ./floor-hook.mjs app.ts     a load hook that only reads each .ts
//                  module's source (module.registerHooks, as lockweave/register's): what any
//                  loader that weaves by the file's text costs a start before it weaves anything
// Prints the medians and the ratios to plain (the target: at most 1.10). Not a test:
// timings depend on the machine. The app does not import the runtime unwoven, as it once did to
// show the loader's own share: the runtime refuses to load in a TypeScript entry run without a
// route (docs/routes.md), so that app no longer starts. The woven modules of the register app load
// it (ioredis only at a first lock).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cpuTicks, stolenSince } from '../machine';
import { cpuRatio, MODULES, type StartWay, TAGGED_EVERY, median, timeStarts, writeGeneratedApp } from './generated-app';

const ROOT = path.resolve(path.dirname(process.argv[1]), '..', '..');
const APP_DIR = path.join(ROOT, 'bench', '.tmp', 'routes', 'loader-overhead');
const CACHE_DIR = path.join(ROOT, 'bench', '.tmp', 'routes', 'loader-overhead-cache');
const NODE = path.join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const REPETITIONS = Number(process.env.BENCH_ROUNDS ?? 7);

/** The floor's hook: Node's own load, its source read as text for each .ts module, handed on unchanged. */
const FLOOR_HOOK = `import { registerHooks } from 'node:module';
registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (url.endsWith('.ts') && loaded.source != null) String(loaded.source);
    return loaded;
  },
});
`;

function generateApp(): void {
  writeGeneratedApp(APP_DIR, {
    packageJson: { type: 'module', private: true },
    importExtension: '.ts',
    appTail: 'console.log(services.length);\n',
  });
  fs.writeFileSync(path.join(APP_DIR, 'floor-hook.mjs'), FLOOR_HOOK);
}

function main(): void {
  const startTicks = cpuTicks();
  if (!fs.existsSync(path.join(ROOT, 'dist', 'transformer', 'routes', 'register.js'))) {
    throw new Error('build first: npx tsc -p tsconfig.build.json');
  }
  generateApp();
  fs.rmSync(CACHE_DIR, { recursive: true, force: true });
  const register = ['--import', 'lockweave/register'];
  const ways: Record<string, StartWay> = {
    plain: { args: [], env: {} },
    register: { args: register, env: { LOCKWEAVE_CACHE_DIR: CACHE_DIR } },
    'register-cold': { args: register, env: { LOCKWEAVE_CACHE: 'off' } },
    'hook-floor': { args: ['--import', './floor-hook.mjs'], env: {} },
  };
  // The first start of each also fills lockweave's woven-file cache.
  const { times, cpuMs } = timeStarts(NODE, APP_DIR, 'app.ts', ways, REPETITIONS);
  const version = spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(
    `start of ${MODULES} .ts modules (${MODULES / TAGGED_EVERY} tagged methods), Node ${version}, median of ${REPETITIONS}:`,
  );
  for (const name of Object.keys(ways)) {
    console.log(
      `  ${name.padEnd(13)} ${median(times[name]).toFixed(0).padStart(5)} ms   CPU ${String(cpuMs[name] ?? '—').padStart(5)} ms in all   (${times[name].map((t) => t.toFixed(0)).join(', ')})`,
    );
  }
  const ratio = (a: string, b: string) => (median(times[a]) / median(times[b])).toFixed(2);
  for (const name of ['register', 'register-cold', 'hook-floor']) {
    console.log(`  ${name} / plain ${ratio(name, 'plain')}x, CPU ${cpuRatio(cpuMs, name, 'plain')} (target <= 1.10x)`);
  }
  console.log(
    `  register / hook-floor ${ratio('register', 'hook-floor')}x, CPU ${cpuRatio(cpuMs, 'register', 'hook-floor')}`,
  );
  console.log(`  CPU stolen by the host during the run: ${stolenSince(startTicks) ?? 'not read'}`);
}

main();
