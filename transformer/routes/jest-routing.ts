// Which transformer jest gives each tagged file, read from the jest config lockweave/jest is handed.
//
// jest gives a file to the first transform entry whose pattern matches its path. A config such as
// { '\\.test\\.ts$': 'lockweave/jest', '\\.ts$': 'ts-jest' } hands lockweave the test files and
// plain ts-jest the code they test: the tagged methods would run unlocked, and the runtime's check
// in the test (runtime/base/weave-mark.ts) sees the test file handed to lockweave and the rest only
// if they load before it. So the transformer, which has the config, looks at every TypeScript file
// under jest's rootDir and roots that holds a tag on disk, and fails every test file when one of them would go
// to a transformer that does not weave.
//
// jest runs every file it loads as code but JSON and native addons, whatever its name, through the
// first entry whose pattern matches: `'\\.svc$': 'ts-jest'` or an app's own transformer may compile
// a `pay.svc` that holds TypeScript. Only lockweave/jest weaves such a name (ts-jest compiles
// TypeScript and JavaScript names only, and hands any other on as it is, unseen by lockweave/ts-jest).
// So the walk takes the project's files under a name no route weaves (isOtherCompiledName: not
// TypeScript, JavaScript or data) too, and fails the test files when one that holds tagged methods
// would go to another transformer. Not only names in moduleFileExtensions: those are the ones jest
// finds without their extension, and `require('./pay.svc')` loads one outside them as well.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isOtherCompiledName, TYPESCRIPT_FILE } from '../../runtime/base/loaded-typescript';
import { MAY_NAME_TAG } from '../../runtime/base/tag-text';
import { locksAsCode } from './tags-on-disk';

/** The part of jest's ProjectConfig read here (as jest hands it to a transformer, normalized). */
export interface JestRoutingConfig {
  readonly rootDir: string;
  readonly roots?: readonly string[];
  /** [pattern, transformer's resolved path, its options], in the config's order. */
  readonly transform?: ReadonlyArray<readonly [string, string, unknown]>;
  readonly transformIgnorePatterns?: readonly string[];
}

const DECLARATION = /\.d\.[cm]?tsx?$/;

/** One verdict per config and worker: the walk reads every TypeScript file under the roots once. */
const verdicts = new Map<string, Error | undefined>();

/**
 * The error that fails the test files when a tagged file would go to a transformer that does not
 * weave; undefined when each goes to lockweave/jest or to ts-jest with lockweave/ts-jest.
 */
export function misroutedTags(config: JestRoutingConfig, configKey: string, self: string): Error | undefined {
  if (verdicts.has(configKey)) return verdicts.get(configKey);
  const verdict = check(config, self);
  verdicts.set(configKey, verdict);
  return verdict;
}

function check(config: JestRoutingConfig, self: string): Error | undefined {
  const entries = config.transform ?? [];
  // The usual config: lockweave/jest takes every file its patterns match, and there is nothing to walk for.
  if (entries.every(([, transformer]) => sameFile(transformer, self))) return undefined;
  const ignored = (config.transformIgnorePatterns ?? []).map((pattern) => new RegExp(pattern));
  // Compiled once, in the config's order, each with what it weaves: TypeScript (lockweave/jest, or
  // ts-jest with lockweave/ts-jest), or any name (lockweave/jest alone).
  const routes = entries.map((entry) => ({
    entry,
    pattern: new RegExp(entry[0]),
    weaves: weaves(entry, self),
    weavesAnyName: sameFile(entry[1], self),
  }));
  const typeScript: string[] = [];
  const otherNames: string[] = [];
  const otherExtensions = new Set<string>();
  for (const root of walkedDirs(config)) {
    for (const file of sourceFiles(root)) {
      if (ignored.some((pattern) => pattern.test(file))) continue;
      const route = routes.find(({ pattern }) => pattern.test(file));
      if (!route || route.weavesAnyName) continue;
      const [pattern, transformer] = route.entry;
      const named = `${path.relative(config.rootDir, file)} (to ${transformerName(transformer)}, pattern ${pattern})`;
      if (TYPESCRIPT_FILE.test(file)) {
        if (!route.weaves && holdsTag(file)) typeScript.push(named);
      } else if (locksAsCode(file)) {
        otherNames.push(named);
        otherExtensions.add(path.extname(file).slice(1));
      }
    }
  }
  const errors = [
    ...(typeScript.length > 0 ? [misroutedTypeScript(typeScript)] : []),
    ...(otherNames.length > 0 ? [misroutedOtherNames(otherNames, [...otherExtensions])] : []),
  ];
  return errors.length > 0 ? new Error(errors.join('\n')) : undefined;
}

function misroutedTypeScript(files: readonly string[]): string {
  return (
    `lockweave: jest's transform gives TypeScript that holds @redisLock tags to a transformer that does not weave, so its tagged methods would run unlocked: ${files.join('; ')}. ` +
    "List lockweave/jest's pattern first (transform: { '^.+\\\\.tsx?$': 'lockweave/jest' }), or give that ts-jest " +
    "astTransformers: { before: ['lockweave/ts-jest'] }."
  );
}

function misroutedOtherNames(files: readonly string[], extensions: readonly string[]): string {
  const escaped = extensions.map((extension) => extension.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&'));
  const pattern = escaped.length === 1 ? `\\\\.${escaped[0]}$` : `\\\\.(?:${escaped.join('|')})$`;
  return (
    `lockweave: jest's transform gives files under a name that is not TypeScript's, and that hold methods with @redisLock tags, to a transformer other than lockweave/jest, so their tagged methods would run unlocked: ${files.join('; ')}. ` +
    `Give that name to lockweave/jest, which weaves and compiles it as TypeScript (transform: { '${pattern}': 'lockweave/jest' }), ` +
    'or give the files a .ts name. ts-jest with lockweave/ts-jest will not do: ts-jest compiles TypeScript and JavaScript names only.'
  );
}

/** lockweave/jest itself, or ts-jest with lockweave/ts-jest among its before-transformers. */
function weaves([, transformer, options]: readonly [string, string, unknown], self: string): boolean {
  if (sameFile(transformer, self)) return true;
  const before = (options as { astTransformers?: { before?: unknown } } | undefined)?.astTransformers?.before;
  if (!/[\\/]ts-jest[\\/]/.test(transformer) || !Array.isArray(before)) return false;
  return before.some((entry) => {
    const named = typeof entry === 'string' ? entry : (entry as { path?: unknown } | null)?.path;
    return named === 'lockweave/ts-jest' || (typeof named === 'string' && /[\\/]routes[\\/]ts-jest\.js$/.test(named));
  });
}

function sameFile(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

function transformerName(file: string): string {
  const inModules = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
  return inModules ? inModules[1] : path.basename(file);
}

/** By a tag's name (MAY_NAME_TAG): the other transformer tells no comment from code, and a tag's attributes in a string are no tag. */
function holdsTag(file: string): boolean {
  try {
    return MAY_NAME_TAG.test(fs.readFileSync(file, 'utf8'));
  } catch {
    return false; // gone since the walk: jest cannot load it either
  }
}

/**
 * Where the tagged files may be: jest finds tests under its roots, but the code they import is
 * often beside them (roots: ['<rootDir>/test'], the code in src/). So the rootDir, and each root
 * outside it.
 */
function walkedDirs({ rootDir, roots = [] }: JestRoutingConfig): string[] {
  const outside = roots.filter((root) => {
    const relative = path.relative(rootDir, root);
    return relative.startsWith('..') || path.isAbsolute(relative);
  });
  return [rootDir, ...new Set(outside)];
}

/**
 * The TypeScript files under `dir` and the files under a name no route weaves (isOtherCompiledName),
 * links not followed. node_modules is left out, as jest's default transformIgnorePatterns leaves it
 * untransformed (docs/routes.md), and .git, which holds no source.
 */
function sourceFiles(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === '.git' ? [] : sourceFiles(full);
    if (!entry.isFile()) return [];
    // A declaration file is left out: tsc's own declaration output keeps the tags of the methods it
    // declares, and jest runs one only when a test loads it (the runtime's check sees that).
    if (DECLARATION.test(entry.name)) return [];
    return TYPESCRIPT_FILE.test(entry.name) || isOtherCompiledName(full) ? [full] : [];
  });
}
