// What the Node loader and the jest transformer read from the project: the nearest tsconfig.json,
// with its `extends` chain, parsed by lockweave's own TypeScript 6 (JSON with comments, as tsc
// reads it). Two things come out of it:
//   - the options of the "lockweave/transformer" plugin entry (`prefix`, `defaults`), so a method
//     locks the same key whichever route built it: tspc and these routes read one entry;
//   - the compiler options, which jest's transpile needs (decorators, jsx, target).
// A tsconfig that cannot be read is an error, not "no options": a lost `prefix` would lock a
// different key than the rest of the system does, and the two would not exclude each other.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { optionsEntry } from '../plugin-entry';
import { ownTypeScript } from '../typescript';

export interface ProjectConfig {
  /** Absolute path of the tsconfig read; undefined when there is none up to the root. */
  readonly configFile: string | undefined;
  /** That file and every file its `extends` chain read: what the options depend on. */
  readonly configFiles: readonly string[];
  /** The weaving entry's `prefix` and `defaults`, as written (weaveSource checks them). */
  readonly plugin: { readonly prefix?: unknown; readonly defaults?: unknown };
  readonly compilerOptions: ts.CompilerOptions;
}

const NO_PROJECT: ProjectConfig = { configFile: undefined, configFiles: [], plugin: {}, compilerOptions: {} };

const nearestByDir = new Map<string, string | undefined>();
const byConfigFile = new Map<string, ProjectConfig>();

/** The project of a source file: `configFile` when given, else the nearest tsconfig.json above the file. */
export function projectConfigFor(fileName: string, configFile?: string): ProjectConfig {
  const found = configFile ? path.resolve(configFile) : nearestTsconfigOf(fileName);
  if (!found) return NO_PROJECT;
  let config = byConfigFile.get(found);
  if (!config) byConfigFile.set(found, (config = readProjectConfig(found)));
  return config;
}

/** The tsconfig.json nearest above a file, found without loading TypeScript. */
export function nearestTsconfigOf(fileName: string): string | undefined {
  return nearestTsconfig(path.dirname(path.resolve(fileName)));
}

function nearestTsconfig(dir: string): string | undefined {
  if (nearestByDir.has(dir)) return nearestByDir.get(dir);
  const candidate = path.join(dir, 'tsconfig.json');
  const parent = path.dirname(dir);
  const found = fs.existsSync(candidate) ? candidate : parent === dir ? undefined : nearestTsconfig(parent);
  nearestByDir.set(dir, found);
  return found;
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
    configFiles,
    plugin: entry ? { prefix: entry.prefix, defaults: entry.defaults } : {},
    compilerOptions: parsed.options,
  };
}

function flatten(tsApi: typeof ts, diagnostic: ts.Diagnostic): string {
  return tsApi.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
}
