// The worker programs are compiled by the real patched compiler (tspc) with the lockweave
// transformer, so the locks the fault cases exercise are the woven ones, exactly as a user's
// build would produce them. Each test process compiles once into its own test/.tmp directory
// (about 3 s), which keeps parallel test files from racing on one output directory.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, WORKERS_DIR, scratchDir } from './paths';

const TSPC = join(REPO_ROOT, 'node_modules', 'ts-patch', 'bin', 'tspc.js');
const TRANSFORMER = join(REPO_ROOT, 'dist', 'transformer', 'index.js');

let compiled: string | undefined;

/** Compiles test/faults/workers with tspc (once per process) and returns the output directory. */
export function compiledWorkersDir(): string {
  if (compiled) return compiled;
  if (!existsSync(TRANSFORMER)) throw new Error('dist/transformer is missing: run `npm run build` (scripts/setup.sh does)');
  const dir = scratchDir('faults-workers');
  // Workers have exited by the time the test process does; their build goes with it.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const outDir = join(dir, 'out');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      // The repo's settings (strict, node16 modules), plus emit and the plugin as users configure it.
      extends: join(REPO_ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: false,
        sourceMap: false,
        rootDir: WORKERS_DIR,
        outDir,
        // By path: no node_modules link to the repo is needed for the compiler to find it.
        plugins: [{ transform: TRANSFORMER }],
      },
      include: [join(WORKERS_DIR, '*.ts')],
      exclude: [],
    }),
  );
  const result = spawnSync(process.execPath, [TSPC, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) {
    throw new Error(`tspc could not compile the fault workers (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  }
  // A worker whose tag was not woven would test nothing: refuse to run it.
  for (const worker of ['counter-worker', 'holder-worker']) {
    const js = readFileSync(join(outDir, `${worker}.js`), 'utf8');
    if (!/_lock_\d+\.run(Composite)?\(/.test(js) || !/defineLock\(/.test(js)) throw new Error(`${worker}: the @redisLock tag was not woven`);
  }
  compiled = outDir;
  return outDir;
}
