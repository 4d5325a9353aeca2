// The worker programs are compiled by the real patched compiler (tspc) with the lockweave
// transformer, so the locks the fault cases exercise are the woven ones, exactly as a user's
// build would produce them. Each test process compiles once into its own test/.tmp directory
// (about 3 s), which keeps parallel test files from racing on one output directory.
//
// The workers run the runtime as it is in runtime/ now, not dist/: `lockweave/runtime` would
// otherwise resolve to the repo's own package exports, dist/, which is only as new as the last
// `npm run build` — a fault run straight after a runtime edit would test the old code and pass or
// fail for the wrong reason. So runtime/*.ts is transpiled (no type check: tsc does that in
// `npm test`) into a `lockweave` package in node_modules beside the workers' output, in a package
// scope of its own. The types the workers are compiled against still come from dist/.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { processScratch } from '../../helpers/process-scratch';
import { REPO_ROOT, WORKERS_DIR } from './paths';
import { tspc } from '../../helpers/tspc';

/** What a locked body starts with: `const lease_1 = await pay_lock_1.acquire(orderNo);` (transformer/weave/method-body.ts). */
export const WOVEN_CALL = /await \w+_lock_\d+\.acquire(Composite|Keyless)?\(/;

/** FAULT_RUNTIME_DIR runs the workers on another copy of runtime/ (a commit's, to tell a test fault from a runtime one). */
const RUNTIME_DIR = process.env.FAULT_RUNTIME_DIR ? resolve(process.env.FAULT_RUNTIME_DIR) : join(REPO_ROOT, 'runtime');

const TRANSFORMER = join(REPO_ROOT, 'dist', 'transformer', 'index.js');

let compiled: string | undefined;

/** Compiles test/faults/workers with tspc (once per process) and returns the output directory. */
export function compiledWorkersDir(): string {
  if (compiled) return compiled;
  if (!existsSync(TRANSFORMER))
    throw new Error('dist/transformer is missing: run `npm run build` (scripts/setup.sh does)');
  // Workers have exited by the time the test process does; their build goes with it (processScratch).
  const dir = processScratch('faults-workers');
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
  const result = tspc(['-p', join(dir, 'tsconfig.json')], { timeoutMs: 60_000 });
  if (result.status !== 0) {
    throw new Error(`tspc could not compile the fault workers (exit ${result.status}):\n${result.output}`);
  }
  // A worker whose tag was not woven would test nothing: refuse to run it.
  for (const worker of ['counter-worker', 'holder-worker']) {
    const js = readFileSync(join(outDir, `${worker}.js`), 'utf8');
    if (!WOVEN_CALL.test(js) || !/defineLock\(/.test(js)) throw new Error(`${worker}: its tag was not woven`);
  }
  // A package scope of their own: inside the repo's, `lockweave/runtime` is a self-reference to
  // the repo's package.json exports (dist/), which Node resolves before looking in node_modules.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'commonjs' }));
  packRuntimeSources(join(dir, 'node_modules', 'lockweave'));
  compiled = outDir;
  return outDir;
}

/** Writes `lockweave` (just its `./runtime` export) into `packageDir`, transpiled from runtime/*.ts. */
function packRuntimeSources(packageDir: string): void {
  const outDir = join(packageDir, 'runtime');
  for (const source of typeScriptFiles(RUNTIME_DIR)) {
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(source, 'utf8'), {
      fileName: source,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    if (diagnostics?.length) {
      throw new Error(
        `cannot transpile ${source}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, '\n')}`,
      );
    }
    const target = join(outDir, relative(RUNTIME_DIR, source).replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  writeFileSync(
    join(packageDir, 'package.json'),
    JSON.stringify({ name: 'lockweave', private: true, exports: { './runtime': './runtime/index.js' } }),
  );
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
