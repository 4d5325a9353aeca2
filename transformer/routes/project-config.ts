// What the Node loader and the jest transformer read from the project: the nearest tsconfig.json,
// with its `extends` chain, parsed by lockweave's own TypeScript 6 (JSON with comments, as tsc
// reads it). Two things come out of it:
//   - the options of the "lockweave/transformer" plugin entry (`prefix`, `defaults`), so a method
//     locks the same key whichever route built it: tspc and these routes read one entry;
//   - the compiler options, which jest's transpile needs (decorators, jsx, target).
// A tsconfig that cannot be read is an error, not "no options": a lost `prefix` would lock a
// different key than the rest of the system does, and the two would not exclude each other.
import * as path from 'node:path';
import type * as ts from 'typescript';
import { optionsEntry } from '../plugin-entry';
import { ownTypeScript } from '../typescript';
import { nearestTsconfigOf, siblingConfigs } from './nearest-tsconfig';

export interface ProjectConfig {
  /** Absolute path of the tsconfig read; undefined when there is none up to the root. */
  readonly configFile: string | undefined;
  /** Whether it (or its `extends` chain) has a lockweave plugin entry. */
  readonly hasEntry: boolean;
  /** The tsconfig files of the projects it references (`references`). */
  readonly references: readonly string[];
  /** That file and every file its `extends` chain read: what the options depend on. */
  readonly configFiles: readonly string[];
  /**
   * Where a package an `extends` names is not, and would be found first if it appeared (a
   * node_modules nearer than the one it was found in): what the options depend on too.
   */
  readonly shadowedBy: readonly string[];
  /** The weaving entry's `prefix` and `defaults`, as written (weaveSource checks them). */
  readonly plugin: { readonly prefix?: unknown; readonly defaults?: unknown };
  readonly compilerOptions: ts.CompilerOptions;
}

const NO_PROJECT: ProjectConfig = {
  configFile: undefined,
  hasEntry: false,
  references: [],
  configFiles: [],
  shadowedBy: [],
  plugin: {},
  compilerOptions: {},
};

const byConfigFile = new Map<string, ProjectConfig>();

const byNearest = new Map<string, ProjectConfig>();

/**
 * The project of a source file: `configFile` when given, else the nearest tsconfig.json above the
 * file — and with it, the configs tspc may have been given instead, whose plugin entry would then
 * be the one that counts: the projects it references (a solution-style tsconfig.json, as vite's
 * template has, whose entry is in tsconfig.app.json) and the tsconfig.*.json beside it
 * (tsconfig.build.json). Where those carry a lockweave entry, they must agree: which one tspc is
 * run with cannot be known here, and two would lock different keys. Else it is an error that
 * names them, and the route's `tsconfig` option says which.
 */
export function projectConfigFor(fileName: string, configFile?: string, tsApi?: typeof ts): ProjectConfig {
  if (configFile) return readCached(path.resolve(configFile), tsApi);
  const nearest = nearestTsconfigOf(fileName);
  if (!nearest) return NO_PROJECT;
  let config = byNearest.get(nearest);
  if (!config) byNearest.set(nearest, (config = agreedConfig(nearest, tsApi)));
  return config;
}

/** `tsApi`: the compiler to read with (tspc's own, in tspc); else lockweave's (typescript.ts). */
function readCached(configFile: string, tsApi?: typeof ts): ProjectConfig {
  let config = byConfigFile.get(configFile);
  if (!config) byConfigFile.set(configFile, (config = readProjectConfig(configFile, tsApi ?? ownTypeScript())));
  return config;
}

function agreedConfig(nearest: string, tsApi: typeof ts | undefined): ProjectConfig {
  const own = readCached(nearest, tsApi);
  const others = [...new Set([...own.references, ...siblingConfigs(nearest)])]
    .filter((file) => file !== nearest)
    .flatMap((file) => {
      try {
        return [readCached(file, tsApi)];
      } catch {
        return []; // one tspc cannot read either (a missing base): it builds nothing with it
      }
    });
  const entries = [own, ...others].filter((config) => config.hasEntry);
  assertAgreed(entries);
  // The configs it was read from are what it depends on: a change in any of them weaves again.
  const read = [own, ...others];
  const configFiles = [...new Set(read.flatMap((config) => config.configFiles))];
  const shadowedBy = [...new Set(read.flatMap((config) => config.shadowedBy))];
  if (entries.length === 0) return enclosingEntry(nearest, own, configFiles, shadowedBy, tsApi);
  // An entry only elsewhere (a solution-style tsconfig.json): that project's entry and compiler options.
  const base = own.hasEntry ? own : entries[0]!;
  return { ...base, configFiles, shadowedBy };
}

/**
 * The nearest project has no lockweave entry (an editor's tsconfig.json in a folder of a larger
 * project, `src/legacy/tsconfig.json`): the file is built by a project further up, whose
 * tsconfig.json includes the folder — `tspc -p .` at the root weaves it with the root's entry. So the
 * entry of the enclosing tsconfig.json files is the file's, and where two of them differ it is an
 * error, as for the configs beside the nearest one. The nearest project's compiler options stay
 * the file's. Every tsconfig.json above is what the answer depends on, and so is the absence of one
 * in each folder above: an entry written there later changes the key.
 */
function enclosingEntry(
  nearest: string,
  own: ProjectConfig,
  configFiles: string[],
  shadowedBy: string[],
  tsApi: typeof ts | undefined,
): ProjectConfig {
  const enclosing: ProjectConfig[] = [];
  const absent: string[] = [];
  for (let dir = path.dirname(path.dirname(nearest)); ; dir = path.dirname(dir)) {
    const above = nearestTsconfigOf(path.join(dir, 'file'));
    for (let missing = dir; missing !== (above && path.dirname(above)); missing = path.dirname(missing)) {
      absent.push(path.join(missing, 'tsconfig.json'));
      if (path.dirname(missing) === missing) break;
    }
    if (!above) break;
    try {
      enclosing.push(readCached(above, tsApi));
    } catch {
      // One tspc cannot read either builds nothing: not the file's project, until it is mended.
      configFiles.push(above);
    }
    dir = path.dirname(above);
    if (path.dirname(dir) === dir) break;
  }
  const entries = enclosing.filter((config) => config.hasEntry);
  assertAgreed(entries);
  return {
    ...own,
    hasEntry: entries.length > 0,
    plugin: entries[0]?.plugin ?? own.plugin,
    configFiles: [...new Set([...configFiles, ...enclosing.flatMap((config) => config.configFiles)])],
    shadowedBy: [...new Set([...shadowedBy, ...absent, ...enclosing.flatMap((config) => config.shadowedBy)])],
  };
}

/** Throws unless the lockweave entries of the configs tspc may build a file with say the same prefix and defaults. */
function assertAgreed(entries: readonly ProjectConfig[]): void {
  const settings = (config: ProjectConfig) => JSON.stringify([config.plugin.prefix, config.plugin.defaults]);
  const differing = entries.filter((config) => settings(config) !== settings(entries[0]!));
  if (differing.length > 0)
    throw new Error(
      `lockweave: the lockweave plugin entries of ${entries.map((config) => `${config.configFile} (prefix ${JSON.stringify(config.plugin.prefix ?? 'LOCK_')}, defaults ${JSON.stringify(config.plugin.defaults ?? {})})`).join(' and ')} differ, ` +
        "and which one tspc builds with cannot be told from here: the methods would lock other keys than tspc's. " +
        "Give them the same prefix and defaults, or name the tsconfig in the route's options ({ tsconfig: 'tsconfig.app.json' }).",
    );
}

function readProjectConfig(configFile: string, tsApi: typeof ts): ProjectConfig {
  const json = tsApi.readJsonConfigFile(configFile, tsApi.sys.readFile);
  const syntax = (json as { parseDiagnostics?: ts.Diagnostic[] }).parseDiagnostics?.[0];
  if (syntax) throw new Error(`lockweave: cannot read ${configFile}: ${flatten(tsApi, syntax)}`);
  // A host that lists no files: the options and `extends` are all we need, and enumerating a
  // large project's sources would cost more than the weaving itself.
  const host: ts.ParseConfigHost = {
    useCaseSensitiveFileNames: tsApi.sys.useCaseSensitiveFileNames,
    readDirectory: () => [],
    fileExists: tsApi.sys.fileExists,
    readFile: tsApi.sys.readFile,
  };
  const parsed = tsApi.parseJsonSourceFileConfigFileContent(
    json,
    host,
    path.dirname(configFile),
    undefined,
    configFile,
  );
  // Errors about options (deprecations, "no inputs") do not change what is woven; an unreadable
  // base config does (its plugin entry would be lost).
  const broken = parsed.errors.find((error) => error.code === 5083 || error.code === 6053 || error.code === 1005);
  if (broken) throw new Error(`lockweave: cannot read ${configFile}: ${flatten(tsApi, broken)}`);
  const configFiles = [configFile, ...(json.extendedSourceFiles ?? [])];
  const entry = optionsEntry(parsed.options.plugins);
  return {
    configFile,
    hasEntry: entry !== undefined,
    references: (parsed.projectReferences ?? []).map(({ path: reference }) =>
      reference.endsWith('.json') ? reference : path.join(reference, 'tsconfig.json'),
    ),
    configFiles,
    shadowedBy: shadowingPackages(tsApi, configFiles),
    plugin: entry ? { prefix: entry.prefix, defaults: entry.defaults } : {},
    compilerOptions: parsed.options,
  };
}

/**
 * For each config of the chain that extends a package (`"extends": "@org/tsconfig/base.json"`):
 * the node_modules/<package> directories between the config and the node_modules it was found in,
 * none of which exists now — one installed there later would be the base TypeScript reads.
 */
function shadowingPackages(tsApi: typeof ts, chain: readonly string[]): string[] {
  const shadows: string[] = [];
  for (const config of chain) {
    const extended: unknown = tsApi.readConfigFile(config, tsApi.sys.readFile).config?.extends;
    const specifiers = (Array.isArray(extended) ? extended : [extended]).filter(
      (specifier): specifier is string =>
        typeof specifier === 'string' && !specifier.startsWith('.') && !path.isAbsolute(specifier),
    );
    for (const specifier of specifiers) {
      const parts = specifier.split('/');
      const name = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
      const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
      const found = chain.find((file) => file.includes(marker));
      const foundIn = found?.slice(0, found.lastIndexOf(marker));
      for (let dir = path.dirname(config); dir !== foundIn; dir = path.dirname(dir)) {
        shadows.push(path.join(dir, 'node_modules', name));
        if (path.dirname(dir) === dir) break;
      }
    }
  }
  return shadows;
}

function flatten(tsApi: typeof ts, diagnostic: ts.Diagnostic): string {
  return tsApi.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
}
