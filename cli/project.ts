// The project a command works on: its tsconfig, its own TypeScript, a program over its files.
//
// Two compilers may be in play. The project's `typescript` decides what its own `tsc` would do (the
// audit reads its version); the compiler that can run the weave (`ownTypeScript()`) is a 5.x or
// 6.x one — TypeScript 7 is native code with no transformer API, so a project on 7 has TypeScript
// 6 beside it as `typescript6`. The type-aware commands use the project's TypeScript when it is
// 5.x or 6.x (what tspc sees), and that TypeScript 6 otherwise.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { printable } from '../runtime/base/printable';
import type * as ts from 'typescript';
import { isLockweaveTransform, optionsEntry } from '../transformer/plugin-entry';
import { ownTypeScript } from '../transformer/typescript';
import { CliError } from './cli-error';
import { printArgument } from './without-credentials';

export interface InstalledTypeScript {
  readonly version: string;
  readonly major: number;
  /** The package directory; undefined when the version comes from package.json's devDependencies only. */
  readonly dir: string | undefined;
}

/** The `typescript` the project would run (`--typescript <dir>` names another), or undefined. */
export function projectTypeScript(projectDir: string, override?: string): InstalledTypeScript | undefined {
  let manifest: string | undefined;
  if (override) manifest = path.join(path.resolve(override), 'package.json');
  else {
    try {
      manifest = require.resolve('typescript/package.json', { paths: [projectDir] });
    } catch {
      return undefined;
    }
  }
  if (!fs.existsSync(manifest))
    throw new CliError(`--typescript ${printArgument(override ?? '')}: no package.json there`);
  const version = String(JSON.parse(fs.readFileSync(manifest, 'utf8')).version);
  return { version, major: Number(version.split('.')[0]), dir: path.dirname(manifest) };
}

/** True when the project's own TypeScript (5.x, 6.x) is the one the type-aware commands run on. */
export function hasCompilerApi(
  installed: InstalledTypeScript | undefined,
): installed is InstalledTypeScript & { dir: string } {
  return installed?.dir !== undefined && (installed.major === 5 || installed.major === 6);
}

/** The compiler API for type-aware work: the project's own if it has one (5.x, 6.x), else the TypeScript 6 beside it. */
export function compilerFor(installed: InstalledTypeScript | undefined, projectDir: string): typeof ts {
  if (hasCompilerApi(installed)) return require(installed.dir) as typeof ts;
  return ownTypeScript(projectDir);
}

export interface Project {
  readonly configFile: string;
  readonly parsed: ts.ParsedCommandLine;
  /** The weaving `lockweave/transformer` entry (prefix, defaults), or undefined when there is none. */
  readonly entry: Record<string, unknown> | undefined;
  /** Other transformer plugins: `lockweave build` does not run them. */
  readonly otherPlugins: readonly string[];
}

export function tsconfigPath(flag: string | undefined): string {
  const file = path.resolve(flag ?? 'tsconfig.json');
  const resolved = fs.existsSync(file) && fs.statSync(file).isDirectory() ? path.join(file, 'tsconfig.json') : file;
  if (!fs.existsSync(resolved)) {
    // The flag as given when it is a URL: resolving folds its :// to :/, which no longer reads as one.
    const shown = flag?.includes('://') ? flag : path.relative(process.cwd(), resolved) || resolved;
    throw new CliError(`${printArgument(shown)}: no such tsconfig (name another with -p <tsconfig>)`);
  }
  return resolved;
}

export function readProject(tsApi: typeof ts, configFile: string, overrides: ts.CompilerOptions = {}): Project {
  const read = tsApi.readConfigFile(configFile, tsApi.sys.readFile);
  if (read.error) throw new CliError(formatDiagnostics(tsApi, [read.error]));
  const parsed = tsApi.parseJsonConfigFileContent(
    read.config,
    tsApi.sys,
    path.dirname(configFile),
    overrides,
    configFile,
  );
  const plugins = (Array.isArray(parsed.options.plugins) ? parsed.options.plugins : []) as unknown as Array<
    Record<string, unknown>
  >;
  const otherPlugins = plugins
    .filter((p) => !isLockweaveTransform(p?.transform))
    .map((p) => String(p?.transform ?? p?.name ?? JSON.stringify(p)));
  return { configFile, parsed, entry: optionsEntry(plugins), otherPlugins };
}

/** The entry's own options (prefix, defaults), as the transformer reads them. */
export function pluginOptions(project: Project): Record<string, unknown> {
  const { transform: _t, transformProgram: _p, ...options } = project.entry ?? {};
  return options;
}

export function createProgram(
  tsApi: typeof ts,
  parsed: ts.ParsedCommandLine,
  rootNames: readonly string[] = parsed.fileNames,
): ts.Program {
  const host = tsApi.createCompilerHost(parsed.options);
  // JSDoc is parsed as tsc parses it (since 5.3: not in .ts files), not for every file: the analysis
  // reads the JSDoc of the files that mention the tag itself (transformer/parse/jsdoc-view.ts).
  (host as { jsDocParsingMode?: number }).jsDocParsingMode = tsApi.JSDocParsingMode?.ParseForTypeErrors;
  return tsApi.createProgram({ rootNames, options: parsed.options, host, projectReferences: parsed.projectReferences });
}

/**
 * `src/pay.ts:12:7 - error TS93010: …`, as tsc prints without colours; paths relative to the working
 * directory. Diagnostics quote the project's code and file names: each line printable (no escape
 * sequence or carriage return of a file's reaches the terminal), the lines kept.
 */
export function formatDiagnostics(tsApi: typeof ts, diagnostics: readonly ts.Diagnostic[]): string {
  return diagnostics
    .map((d) => {
      const category = tsApi.DiagnosticCategory[d.category].toLowerCase();
      const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return `${category} TS${d.code}: ${text}`;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${path.relative(process.cwd(), d.file.fileName)}:${line + 1}:${character + 1} - ${category} TS${d.code}: ${text}`;
    })
    .join('\n')
    .split('\n')
    .map(printable)
    .join('\n');
}

export function plural(count: number, word: string, words = `${word}s`): string {
  return `${count} ${count === 1 ? word : words}`;
}
