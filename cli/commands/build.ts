// `lockweave build`: tsc with the weave, on the project's TypeScript when it is 5.x or 6.x, else on
// TypeScript 6 installed beside it as `typescript6` — the route for projects whose `typescript` is 7
// (the native compiler, no transformer API), and one that needs neither ts-patch nor the plugin
// entry on 5.x and 6.x. It emits what tsc would from the same tsconfig
// (outDir, module, declarations, source maps) and reports errors as tsc does; a tag error fails it.
import * as path from 'node:path';
import type * as ts from 'typescript';
import lockweave, { serveDiagnostics } from '../../transformer';
import { ownTypeScript } from '../../transformer/typescript';
import { PROJECT_FLAG, type Command, type ParsedArgs } from '../command';
import { createProgram, formatDiagnostics, plural, pluginOptions, readProject, tsconfigPath } from '../project';

export const build: Command = {
  name: 'build',
  summary: 'compile the project like tsc, with every tagged method woven (any typescript: 5.9, 6, 7)',
  synopsis: 'lockweave build [-p <tsconfig>] [--outDir <dir>] [--noEmit]',
  flags: [
    PROJECT_FLAG,
    { names: ['--outDir'], value: '<dir>', help: "write the output here instead of the tsconfig's outDir" },
    { names: ['--noEmit'], help: 'check types and tags only, write nothing' },
  ],
  operands: { min: 0, max: 0, name: '' },
  details: [
    "Compiles with the project's `typescript` when it is 5.x or 6.x, else with TypeScript 6 installed beside it",
    '(npm install -D typescript6@npm:typescript@^6): TypeScript 7\'s tsc ignores "plugins" and would emit every',
    'tagged method unlocked.',
    'Needs no ts-patch and no plugin entry; a "lockweave/transformer" entry\'s prefix and defaults apply.',
    'TypeScript 6 deprecation errors (5101, 5107: options TypeScript 7 removed) are silenced, as',
    '"ignoreDeprecations": "6.0" would; other transformer plugins in the tsconfig are not run (it says so).',
    '',
    'Exit: 0 built; 1 any error (type or tag; output is still written unless noEmitOnError, as tsc does,',
    'and a method with a tag error is emitted as a body that throws it, never unlocked); 2 bad command line.',
    '',
    'Examples:',
    '  lockweave build                       # like tsc -p tsconfig.json',
    '  lockweave build -p tsconfig.build.json',
  ].join('\n'),
  run: runBuild,
};

function runBuild(args: ParsedArgs): number {
  const configFile = tsconfigPath(args.flags.project);
  const tsApi = ownTypeScript(path.dirname(configFile));
  // TypeScript 5.x knows no "6.0" (and has no 6.0 deprecations to silence).
  const overrides: ts.CompilerOptions = Number.parseInt(tsApi.version, 10) >= 6 ? { ignoreDeprecations: '6.0' } : {};
  if (args.flags.outDir) overrides.outDir = path.resolve(args.flags.outDir);
  if (args.flags.noEmit) overrides.noEmit = true;
  const project = readProject(tsApi, configFile, overrides);
  if (project.otherPlugins.length) {
    console.error(
      `lockweave build: not running the other plugins of ${path.basename(project.configFile)}: ${project.otherPlugins.join(', ')}`,
    );
  }
  // Without its "plugins": a project's TypeScript that `ts-patch install` patched would run them in
  // emit, and weave a second time; lockweave's own weave below is the one this build runs.
  const program = createProgram(tsApi, {
    ...project.parsed,
    options: { ...project.parsed.options, plugins: undefined },
  });
  const config = { ...pluginOptions(project) };
  // The program entry adds tag errors to the program's own diagnostics (as with tspc); the emit
  // entry then weaves from the same analysis without reporting them twice.
  serveDiagnostics(program, config, { ts: tsApi });
  const errors: ts.Diagnostic[] = [
    // An ignoreDeprecations value TypeScript 6 does not know (5103) is one meant for another compiler.
    ...project.parsed.errors.filter((d) => d.code !== 5103),
    ...tsApi.getPreEmitDiagnostics(program),
  ];
  let emitted: ts.EmitResult | undefined;
  if (!program.getCompilerOptions().noEmit) {
    const weave = lockweave(program, config, {
      ts: tsApi,
      addDiagnostic: (d: ts.Diagnostic) => errors.push(d),
    }) as ts.TransformerFactory<ts.SourceFile>;
    emitted = program.emit(undefined, undefined, undefined, false, { before: [weave] });
    errors.push(...emitted.diagnostics);
  }
  const shown = tsApi.sortAndDeduplicateDiagnostics(errors);
  if (shown.length) console.error(formatDiagnostics(tsApi, shown));
  const failed = shown.filter((d) => d.category === tsApi.DiagnosticCategory.Error).length;
  if (failed) {
    const skipped = emitted?.emitSkipped ? ' (nothing written)' : '';
    console.error(`\nFound ${plural(failed, 'error')}${skipped}.`);
    return 1;
  }
  return 0;
}
