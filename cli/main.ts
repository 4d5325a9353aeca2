#!/usr/bin/env node
// lockweave — a small command line around the transformer.
//
//   lockweave show <file.ts> [-p tsconfig]            print the woven JavaScript of one file
//   lockweave check [-p tsconfig] [--typescript dir]  type-check the project's @redisLock tags
//
// `check` exists because TypeScript 7's native tsc ignores compiler plugins without a word:
// a project that moves to it would ship every tagged method without its lock. It refuses to
// pass on TypeScript >= 7 and on a tsconfig without the lockweave plugin entry.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import lockweave from '../transformer';

interface Args { command?: string; file?: string; project?: string; typescript?: string }

function parseArgs(argv: string[]): Args {
  const args: Args = { typescript: process.env.LOCKWEAVE_TYPESCRIPT };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-p' || arg === '--project') args.project = argv[++i];
    else if (arg === '--typescript') args.typescript = argv[++i];
    else if (!args.command) args.command = arg;
    else if (!args.file) args.file = arg;
    else throw new UsageError(`unexpected argument ${arg}`);
  }
  return args;
}

class UsageError extends Error {}

const USAGE = 'usage: lockweave show <file.ts> [-p tsconfig.json]\n       lockweave check [-p tsconfig.json] [--typescript <dir of the typescript package>]';

/** The project's own TypeScript (or the one named), not the one lockweave was built with. */
function loadTypeScript(args: Args, projectDir: string): { tsApi: typeof ts; dir: string } {
  const dir = args.typescript
    ? path.resolve(args.typescript)
    : path.dirname(require.resolve('typescript/package.json', { paths: [projectDir, __dirname] }));
  const version: string = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  if (Number(version.split('.')[0]) >= 7) {
    throw new UsageError([
      `the project's TypeScript is ${version} (${dir}).`,
      'TypeScript 7 is the native compiler: it has no transformer API and ignores "plugins" without a word,',
      'so its tsc would emit every @redisLock method WITHOUT its lock. Build with TypeScript 6 through ts-patch:',
      '  npm i -D typescript6@npm:typescript@6     (or @typescript/typescript6)',
      '  TSP_COMPILER_TS_PATH=$PWD/node_modules/typescript6 npx tspc -p tsconfig.json',
    ].join('\n'));
  }
  return { tsApi: require(dir) as typeof ts, dir };
}

function readProject(tsApi: typeof ts, project: string, needsPlugin = true) {
  const file = path.resolve(project);
  const read = tsApi.readConfigFile(file, tsApi.sys.readFile);
  if (read.error) throw new UsageError(tsApi.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = tsApi.parseJsonConfigFileContent(read.config, tsApi.sys, path.dirname(file), undefined, file);
  const plugins = (parsed.options.plugins ?? []) as unknown as Array<Record<string, unknown>>;
  const entry = plugins.find((p) => typeof p.transform === 'string' && /lockweave\/transformer|lockweave$/.test(p.transform as string) && !p.transformProgram);
  if (!entry && needsPlugin) {
    throw new UsageError(`${project} has no lockweave plugin entry, so tspc would not weave any lock. Add to compilerOptions:\n  "plugins": [{ "transform": "lockweave/transformer" }]`);
  }
  return { parsed, entry: entry ?? {} };
}

function createProgram(tsApi: typeof ts, parsed: ts.ParsedCommandLine, rootNames = parsed.fileNames) {
  const host = tsApi.createCompilerHost(parsed.options);
  // The same JSDoc parsing ts-patch enables for the plugin: without it no tag is seen.
  (host as { jsDocParsingMode?: number }).jsDocParsingMode = tsApi.JSDocParsingMode?.ParseAll;
  return tsApi.createProgram({ rootNames, options: parsed.options, host });
}

function format(tsApi: typeof ts, diagnostics: readonly ts.Diagnostic[]): string {
  return diagnostics.map((d) => {
    const text = tsApi.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return `error TS${d.code}: ${text}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(process.cwd(), d.file.fileName)}:${line + 1}:${character + 1} - error TS${d.code}: ${text}`;
  }).join('\n');
}

function check(args: Args): number {
  const project = args.project ?? 'tsconfig.json';
  const { tsApi } = loadTypeScript(args, path.dirname(path.resolve(project)));
  const { parsed, entry } = readProject(tsApi, project);
  const program = createProgram(tsApi, parsed);
  lockweave(program, undefined, { ...entry, transformProgram: true }, { ts: tsApi });
  const diagnostics = [...program.getGlobalDiagnostics(), ...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()]
    .filter((d) => d.category === tsApi.DiagnosticCategory.Error);
  if (diagnostics.length) {
    console.error(format(tsApi, diagnostics));
    return 1;
  }
  console.log(`lockweave: ${parsed.fileNames.length} files checked, every @redisLock tag is valid`);
  return 0;
}

function show(args: Args): number {
  if (!args.file) throw new UsageError(USAGE);
  const file = path.resolve(args.file);
  const { tsApi } = loadTypeScript(args, path.dirname(file));
  // The file's own project (nearest tsconfig.json) unless -p names one; show needs no plugin entry.
  const project = args.project ?? tsApi.findConfigFile(path.dirname(file), tsApi.sys.fileExists);
  const { parsed, entry } = project
    ? readProject(tsApi, project, false)
    : { parsed: { options: { target: tsApi.ScriptTarget.ES2022, module: tsApi.ModuleKind.ESNext }, fileNames: [file], errors: [] } as unknown as ts.ParsedCommandLine, entry: {} };
  const program = createProgram(tsApi, parsed, [file]);
  const source = program.getSourceFile(file);
  if (!source) throw new UsageError(`${args.file} is not a TypeScript file the project can read`);
  const errors: ts.Diagnostic[] = [];
  const { transform: _t, transformProgram: _p, ...config } = entry as Record<string, unknown>;
  const weave = lockweave(program, config, { ts: tsApi, addDiagnostic: (d: ts.Diagnostic) => errors.push(d) }) as ts.TransformerFactory<ts.SourceFile>;
  let output = '';
  program.emit(source, (name, text) => { if (/\.[cm]?js$/.test(name)) output = text; }, undefined, false, { before: [weave] });
  if (errors.length) {
    console.error(format(tsApi, errors));
    return 1;
  }
  process.stdout.write(output);
  return 0;
}

function main(argv: string[]): number {
  try {
    const args = parseArgs(argv);
    if (args.command === 'check') return check(args);
    if (args.command === 'show') return show(args);
    console.error(USAGE);
    return args.command ? 2 : 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`lockweave: ${error.message}`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
