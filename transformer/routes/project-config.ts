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
export function projectConfigFor(fileName: string, configFile?: string): ProjectConfig {
  if (configFile) return readCached(path.resolve(configFile));
  const nearest = nearestTsconfigOf(fileName);
  if (!nearest) return NO_PROJECT;
  let config = byNearest.get(nearest);
  if (!config) byNearest.set(nearest, (config = agreedConfig(nearest)));
  return config;
}

function readCached(configFile: string): ProjectConfig {
  let config = byConfigFile.get(configFile);
  if (!config) byConfigFile.set(configFile, (config = readProjectConfig(configFile)));
  return config;
}

function agreedConfig(nearest: string): ProjectConfig {
  const own = readCached(nearest);
  const others = [...new Set([...own.references, ...siblingConfigs(nearest)])]
    .filter((file) => file !== nearest)
    .flatMap((file) => {
      try {
        return [readCached(file)];
      } catch {
        return []; // one tspc cannot read either (a missing base): it builds nothing with it
      }
    });
  const entries = [own, ...others].filter((config) => config.hasEntry);
  const settings = (config: ProjectConfig) => JSON.stringify([config.plugin.prefix, config.plugin.defaults]);
  const differing = entries.filter((config) => settings(config) !== settings(entries[0]!));
  if (differing.length > 0)
    throw new Error(
      `lockweave: the lockweave plugin entries of ${entries.map((config) => `${config.configFile} (prefix ${JSON.stringify(config.plugin.prefix ?? 'LOCK_')}, defaults ${JSON.stringify(config.plugin.defaults ?? {})})`).join(' and ')} differ, ` +
        "and which one tspc builds with cannot be told from here: the methods would lock other keys than tspc's. " +
        "Give them the same prefix and defaults, or name the tsconfig in the route's options ({ tsconfig: 'tsconfig.app.json' }).",
    );
  // The configs it was read from are what it depends on: a change in any of them weaves again.
  const read = [own, ...others];
  const configFiles = [...new Set(read.flatMap((config) => config.configFiles))];
  const shadowedBy = [...new Set(read.flatMap((config) => config.shadowedBy))];
  // An entry only elsewhere (a solution-style tsconfig.json): that project's entry and compiler options.
  const base = own.hasEntry || entries.length === 0 ? own : entries[0]!;
  return { ...base, configFiles, shadowedBy };
}

function readProjectConfig(configFile: string): ProjectConfig {
  const tsApi = ownTypeScript();
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
