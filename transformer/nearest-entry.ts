// tspc weaves every file of its program with the plugin entry it was loaded from. The other routes
// (lockweave/register, the bundler plugins, jest) read each file's own project instead: its nearest
// tsconfig.json, the configs beside it, and — where that has no entry — the tsconfig.json files
// above it, up to the project's root, that include the file (routes/project-config.ts). A tagged file whose project there says another prefix or
// other defaults than tspc's entry locks other keys under those routes than in tspc's output, and
// the two would not exclude each other: a build error of tspc's, naming the file and the configs.
import * as path from 'node:path';
import type * as ts from 'typescript';
import { PACKAGE_FILE } from '../runtime/base/loaded-typescript';
import { Code, LockweaveDiagnostic } from './diagnostics';
import { mayHoldTag } from './parse/find-tags';
import { settingsNote, settingsText } from './plugin-entry';
import { projectConfigFor } from './routes/project-config';

/** The first tagged file of `program` whose project the routes read with other settings than `entry`'s. */
export function nearestEntryMismatch(
  program: ts.Program,
  entry: Record<string, unknown>,
  tsApi: typeof ts,
): LockweaveDiagnostic | undefined {
  const own = program.getCompilerOptions().configFilePath;
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || PACKAGE_FILE.test(file.fileName) || !mayHoldTag(file.text)) continue;
    let read: ReturnType<typeof projectConfigFor>;
    try {
      read = projectConfigFor(file.fileName, undefined, tsApi);
    } catch (error) {
      return new LockweaveDiagnostic(Code.PluginConfig, (error as Error).message, { file, start: 0, length: 0 });
    }
    if (settingsText(read.plugin) === settingsText(entry)) continue;
    const where = read.configFile ? path.relative(process.cwd(), read.configFile) : 'no tsconfig.json';
    return new LockweaveDiagnostic(
      Code.PluginConfig,
      `${path.relative(process.cwd(), file.fileName)} is built here with the lockweave entry of ${typeof own === 'string' ? path.relative(process.cwd(), own) : 'this program'} ` +
        `(${settingsText(entry)}), but its own project (${where}) says ${settingsText(read.plugin)}${settingsNote([entry, read.plugin])}, which lockweave/register, ` +
        'the bundler plugins and jest read for it: its methods would lock other keys there than in this build. ' +
        'Give both the same prefix and defaults, or remove the lockweave entry from the one that does not build the file.',
      { file, start: 0, length: 0 },
    );
  }
  return undefined;
}
