// `lockweave show <file>`: what a route makes of one file, for a reader who wants to see the lock.
//   --route tspc    the JavaScript tspc (and lockweave build) emits, type-checked keys included
//   --route source  the TypeScript the bundler plugins, the Node loader and lockweave/jest hand on
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import lockweave from '../../transformer';
import { projectConfigFor } from '../../transformer/routes/project-config';
import { weaveSource } from '../../transformer/weave-source';
import { CliError } from '../cli-error';
import { PROJECT_FLAG, type Command, type ParsedArgs } from '../command';
import { printArgument } from '../without-credentials';
import {
  compilerFor,
  createProgram,
  formatDiagnostics,
  pluginOptions,
  projectTypeScript,
  readProject,
} from '../project';

export const show: Command = {
  name: 'show',
  summary: 'print what a route makes of one file: woven JavaScript (tspc) or woven TypeScript (source)',
  synopsis: 'lockweave show <file.ts> [-p <tsconfig>] [--route tspc|source]',
  flags: [
    { ...PROJECT_FLAG, help: 'the tsconfig to read (default: the nearest tsconfig.json above the file)' },
    {
      names: ['--route'],
      value: '<route>',
      choices: ['tspc', 'source'],
      help: 'tspc (default): the JavaScript tspc and lockweave build emit; source: the TypeScript the bundler, loader and jest routes see',
    },
  ],
  operands: { min: 1, max: 1, name: '<file.ts>' },
  details: [
    'Exit: 0 printed; 1 the file has a tag error (printed as file:line:col - error TS930xx); 2 bad command line.',
    '',
    'Examples:',
    '  lockweave show src/order-service.ts',
    '  lockweave show src/order-service.ts --route source',
  ].join('\n'),
  run: runShow,
};

function runShow(args: ParsedArgs): number {
  const file = path.resolve(args.operands[0]);
  if (!fs.existsSync(file)) throw new CliError(`${printArgument(args.operands[0])}: no such file`);
  return args.flags.route === 'source' ? showSource(file, args.flags.project) : showTspc(file, args.flags.project);
}

function showSource(file: string, project: string | undefined): number {
  const config = projectConfigFor(file, project);
  const result = weaveSource(file, fs.readFileSync(file, 'utf8'), { ...config.plugin, sourceMap: false });
  if (result.errors.length) {
    console.error(
      result.errors
        .map(
          (e) =>
            `${path.relative(process.cwd(), e.fileName)}${e.line > 0 ? `:${e.line}:${e.column}` : ''} - error TS${e.code}: ${e.message}`,
        )
        .join('\n'),
    );
    return 1;
  }
  process.stdout.write(result.code);
  return 0;
}

function showTspc(file: string, projectFlag: string | undefined): number {
  const tsApi = compilerFor(projectTypeScript(path.dirname(file)), path.dirname(file));
  // The file's own project (nearest tsconfig.json) unless -p names one; show needs no plugin entry.
  const configFile = projectFlag
    ? path.resolve(projectFlag)
    : tsApi.findConfigFile(path.dirname(file), tsApi.sys.fileExists);
  const project = configFile ? readProject(tsApi, configFile, silenceDeprecations(tsApi)) : undefined;
  const parsed =
    project?.parsed ??
    ({
      options: { target: tsApi.ScriptTarget.ES2022, module: tsApi.ModuleKind.ESNext },
      fileNames: [file],
      errors: [],
    } as unknown as ts.ParsedCommandLine);
  const program = createProgram(tsApi, parsed, [file]);
  const source = program.getSourceFile(file);
  if (!source)
    throw new CliError(`${path.relative(process.cwd(), file)} is not a TypeScript file the project can read`);
  const errors: ts.Diagnostic[] = [];
  const weave = lockweave(program, project ? pluginOptions(project) : {}, {
    ts: tsApi,
    addDiagnostic: (d: ts.Diagnostic) => errors.push(d),
  }) as ts.TransformerFactory<ts.SourceFile>;
  let output = '';
  program.emit(
    source,
    (name, text) => {
      if (/\.[cm]?jsx?$/.test(name)) output = text;
    },
    undefined,
    false,
    { before: [weave] },
  );
  if (errors.length) {
    console.error(formatDiagnostics(tsApi, errors));
    return 1;
  }
  process.stdout.write(output);
  return 0;
}

/** TypeScript 6 errors on options 7 removed; they do not change what one file weaves into. */
function silenceDeprecations(tsApi: typeof ts): ts.CompilerOptions {
  return Number(tsApi.versionMajorMinor.split('.')[0]) >= 6 ? { ignoreDeprecations: '6.0' } : {};
}
