// vite's dependency optimizer (pre-bundling) and lockweave's vite plugin.
//
// The optimizer bundles the packages it is told to include (`optimizeDeps.include`, and vitest's
// `test.deps.optimizer.{ssr,client,web}`, which vitest copies into each environment's optimizeDeps)
// with a bundler of its own: rolldown from vite 8 (and rolldown-vite), esbuild before. That bundler
// runs the plugins of `optimizeDeps.rolldownOptions` / `.esbuildOptions`, not vite's, and writes
// under node_modules/.vite, where vite's plugin later sees package JavaScript and leaves it alone.
// A linked workspace package that ships TypeScript would be compiled there without lockweave: its
// tagged methods would run unlocked, with no error.
//
// So once the config is resolved (vitest's copies made, every environment known), lockweave's
// hooks go first into every environment's optimizer: the optimizer's build weaves what it compiles
// with the same options as the rest of the build, and its end fails on a tagged file handed on
// without its tags (the hooks' 'build-end' check).
//
// vite keeps what the optimizer wrote until its hash changes: the lockfile, and the config with
// the optimizer's plugin names. It never reads the tsconfig a weave read, so a changed `prefix`
// would go on locking the old key. The plugin's name carries that: the optimizer's build records
// the tsconfig files its weave read (in vite's cache directory), and the next start names the
// plugin after their text when it changed, which makes vite optimize again.
//
// An optimizer lockweave cannot hook (esbuild's, before vite 8: its plugins load files rather than
// transform them) is refused at config time when it is told to include a linked package, the
// only kind of package whose TypeScript it would compile unwoven where a user expects a weave.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PACKAGE_FILE } from '../../runtime/base/loaded-typescript';
import type { lockweaveHooks, WatchContext } from './bundler-hooks';
import { projectKeyOf } from './nearest-tsconfig';
import { readText } from './tags-on-disk';

/** lockweave's hooks, as the optimizer's rolldown build runs them. */
type Hooks = ReturnType<typeof lockweaveHooks>;

/** The part of an environment's resolved optimizeDeps this reads and changes. */
interface OptimizeDeps {
  include?: readonly string[];
  rolldownOptions?: { plugins?: unknown };
}

/** The part of vite's resolved config this reads: every environment's optimizer (vite ≥ 6), else vite 5's two. */
export interface OptimizedConfig {
  readonly root: string;
  readonly cacheDir: string;
  readonly optimizeDeps?: OptimizeDeps;
  readonly ssr?: { readonly optimizeDeps?: OptimizeDeps };
  readonly environments?: Record<string, { readonly optimizeDeps?: OptimizeDeps }>;
}

/** What vite's plugin context says of the tools behind it (`this.meta`). */
export interface ViteMeta {
  readonly viteVersion?: string;
  readonly rolldownVersion?: string;
}

const PLUGIN_NAME = 'lockweave:optimizer';

/**
 * lockweave's own modules: `lockweave/runtime`, which woven code imports, and `lockweave`, which
 * tagged code may import. Left to the app's copy (external), never bundled into an optimized
 * package: a second copy of the runtime there keeps settings of its own, which configure() never
 * reaches (runtime-copies.ts refuses such a mix loudly).
 */
const OWN_MODULE = /^lockweave(?:\/|$)/;

/**
 * Puts lockweave's hooks (`hooks()`, fresh for each environment) first into the optimizer of every
 * environment of `config`, when the optimizer is rolldown; else refuses a config whose optimizer
 * includes a linked package. Called from vite's configResolved, before vite reads the optimizer's
 * plugin names.
 */
export function weaveOptimizedDeps(config: OptimizedConfig, meta: ViteMeta | undefined, hooks: () => Hooks): void {
  if (meta?.rolldownVersion !== undefined) {
    for (const [environment, { optimizeDeps }] of Object.entries(config.environments ?? {}))
      if (optimizeDeps) hookRolldown(optimizeDeps, () => optimizerPlugin(hooks(), recordOf(config, environment)));
    return;
  }
  const optimizers = [
    ...Object.values(config.environments ?? {}).map((environment) => environment.optimizeDeps),
    config.optimizeDeps,
    config.ssr?.optimizeDeps,
  ];
  const linked = new Set(optimizers.flatMap((optimizeDeps) => linkedIncludes(config.root, optimizeDeps?.include)));
  if (linked.size > 0) throw unhookedOptimizerError([...linked], meta?.viteVersion);
}

function hookRolldown(optimizeDeps: OptimizeDeps, plugin: () => object): void {
  const options = (optimizeDeps.rolldownOptions ??= {});
  const plugins = options.plugins === undefined ? [] : [options.plugins].flat();
  // Once: vite hands worker configs, which share the environments, to configResolved again.
  if (plugins.some((entry) => String((entry as { name?: unknown } | null)?.name).startsWith(PLUGIN_NAME))) return;
  // First: a plugin before it could hand TypeScript on without its tags (the build's end would say so).
  options.plugins = [plugin(), ...plugins];
}

/** The file where an environment's optimizer records the tsconfig files its weave read. */
function recordOf(config: OptimizedConfig, environment: string): string {
  return path.join(config.cacheDir, `lockweave-optimizer-${environment.replace(/[^\w.-]/g, '_')}.json`);
}

/** What an optimizer's build wove with: the plugin's name then, the files it read (and those it found absent), and their digest. */
interface WeaveRecord {
  readonly name: string;
  readonly woven: readonly string[];
  readonly configFiles: readonly string[];
  /** Absent from a record written before lockweave recorded them: read as none. */
  readonly absent?: readonly string[];
  /** The paths it found present whose removal would change the settings (a project's root marker); as `absent`, none in an older record. */
  readonly present?: readonly string[];
  readonly digest: string;
}

/**
 * The hooks as the optimizer's plugin, leaving lockweave's own modules to the app (OWN_MODULE),
 * and recording at the end what this build wove with. Its name is the last build's while the
 * settings that build wove with are unchanged (vite's cache stays valid); else it is new, and vite
 * optimizes again: named after the settings when they changed, after the time when no record
 * says what the cache was woven with (removed, or a cache from before the record).
 */
function optimizerPlugin(hooks: Hooks, record: string) {
  const last = readRecord(record);
  const digest = last && digestOf(last);
  const name = !last
    ? `${PLUGIN_NAME}:unrecorded-${Date.now().toString(36)}`
    : digest === last.digest
      ? last.name
      : `${PLUGIN_NAME}:${digest}`;
  const woven = new Set<string>();
  const configFiles = new Set<string>();
  const absent = new Set<string>();
  const present = new Set<string>();
  const { filter, handler } = hooks.transform;
  return {
    ...hooks,
    name,
    resolveId: {
      filter: { id: OWN_MODULE },
      handler: (id: string) => (OWN_MODULE.test(id) ? { id, external: true } : undefined),
    },
    transform: {
      filter,
      handler(this: WatchContext, code: string, id: string) {
        const context: WatchContext = {
          addWatchFile: (file) => {
            configFiles.add(file);
            this.addWatchFile(file);
          },
          dependsOnAbsent: (file) => absent.add(file),
          dependsOnPresent: (file) => present.add(file),
        };
        const module = handler.call(context, code, id);
        if (module) woven.add(id.replace(/\?.*$/, ''));
        return module;
      },
    },
    buildEnd(this: ThisParameterType<Hooks['buildEnd']>, error?: Error): void {
      hooks.buildEnd.call(this, error);
      if (error) return;
      const files = {
        woven: [...woven].sort(),
        configFiles: [...configFiles].sort(),
        absent: [...absent].sort(),
        present: [...present].sort(),
      };
      writeRecord(record, { name, ...files, digest: digestOf(files) });
    },
  };
}

/**
 * What decides the settings a weave read: the text of each config file, each path that was absent
 * and would be read instead if it appeared (a package an `extends` names, in a nearer node_modules;
 * a tsconfig.json between a file's and the one whose entry it takes), and for each woven file its
 * nearest tsconfig and the names beside it (a tsconfig added nearer to a file is read instead).
 */
function digestOf(files: Pick<WeaveRecord, 'woven' | 'configFiles' | 'absent' | 'present'>): string {
  const hash = (require('node:crypto') as typeof import('node:crypto')).createHash('sha256');
  for (const file of files.configFiles) hash.update(`${file}\0${readText(file) ?? '(absent)'}\0`);
  // Hashed only when one appeared, or went: a record without any keeps its digest.
  for (const file of files.absent ?? []) if (fs.existsSync(file)) hash.update(`${file}\0(appeared)\0`);
  for (const file of files.present ?? []) if (!fs.existsSync(file)) hash.update(`${file}\0(gone)\0`);
  for (const file of files.woven) hash.update(`${file}\0${projectKeyOf(file) ?? ''}\0`);
  return hash.digest('hex').slice(0, 16);
}

function readRecord(file: string): WeaveRecord | undefined {
  try {
    const record = JSON.parse(readText(file) ?? 'null') as WeaveRecord | null;
    return record &&
      Array.isArray(record.woven) &&
      Array.isArray(record.configFiles) &&
      (record.absent === undefined || Array.isArray(record.absent)) &&
      (record.present === undefined || Array.isArray(record.present))
      ? record
      : undefined;
  } catch {
    return undefined; // unreadable: as if none, and vite optimizes again
  }
}

function writeRecord(file: string, record: WeaveRecord): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(record));
}

/**
 * Entries of `include` that name a linked package: one whose directory, found as Node finds it, is
 * not under node_modules once links are followed. A nested entry (`a > b`) is checked name by name,
 * each found from the package before it (b is a's dependency), as vite finds it; a glob cannot be
 * told, and counts as linked.
 */
function linkedIncludes(root: string, include: readonly string[] | undefined): string[] {
  return (include ?? []).filter((entry) => {
    let from: string | undefined = root;
    for (const name of entry.split('>').map((part) => part.trim())) {
      if (name.includes('*')) return true;
      if (from === undefined) return false; // the one before is not installed: vite fails to resolve it
      from = packageDir(from, packageName(name));
      if (from !== undefined && !PACKAGE_FILE.test(`${from}${path.sep}`)) return true;
    }
    return false;
  });
}

/** `@org/pay/sub` → `@org/pay`; `pay/sub` → `pay`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

/** The real directory of package `name` seen from `dir` (the nearest node_modules holding it), or undefined. */
function packageDir(dir: string, name: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      return fs.realpathSync(path.join(at, 'node_modules', name));
    } catch {
      if (path.dirname(at) === at) return undefined;
    }
  }
}

function unhookedOptimizerError(linked: readonly string[], viteVersion: string | undefined): Error {
  return new Error(
    `lockweave: vite's dependency optimizer is told to include ${linked.join(', ')}, a linked package (or a pattern that may match one), ` +
      `but this vite (${viteVersion ?? 'before 7'}) optimizes with esbuild, whose build lockweave cannot weave, so tagged methods in that package's ` +
      "TypeScript would run unlocked. Take it out of optimizeDeps.include (and vitest's test.deps.optimizer.*.include): vite serves a linked " +
      "package as source, through lockweave's plugin. Or move to vite 8, whose optimizer lockweave weaves.",
  );
}
