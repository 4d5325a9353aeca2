// tspc weaves every file of its program with the plugin entry it was loaded from. The other routes
// (lockweave/register, the bundler plugins, jest) read each file's own project instead: its nearest
// tsconfig.json, the configs beside it, and — where that has no entry — the tsconfig.json files
// above it, up to the project's root, that include the file (routes/project-config.ts). A tagged file whose project there says another prefix or
// other defaults than tspc's entry locks other keys under those routes than in tspc's output, and
// the two would not exclude each other: a build error of tspc's, naming the file and the configs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { PACKAGE_FILE } from '../runtime/base/loaded-typescript';
import { Code, LockweaveDiagnostic } from './diagnostics';
import { mayHoldTag } from './parse/find-tags';
import { settingsNote, settingsText } from './plugin-entry';
import { type ProjectConfig, projectConfigsOf } from './routes/project-config';

/** The first tagged file of `program` whose project the routes read with other settings than `entry`'s. */
export function nearestEntryMismatch(
  program: ts.Program,
  entry: Record<string, unknown>,
  tsApi: typeof ts,
): LockweaveDiagnostic | undefined {
  const own = program.getCompilerOptions().configFilePath;
  const projectOf = projectConfigsOf(tsApi);
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || PACKAGE_FILE.test(file.fileName) || !mayHoldTag(file.text)) continue;
    // tsc lists a file by the path it found it at (through a linked folder, `src/shared` → `../shared`);
    // Node's loader and the bundlers hand the routes its real path, whose nearest tsconfig may be another.
    const real = realPath(file.fileName);
    for (const name of real === path.resolve(file.fileName) ? [file.fileName] : [file.fileName, real]) {
      let read: ProjectConfig;
      try {
        read = projectOf(name);
      } catch (error) {
        return new LockweaveDiagnostic(Code.PluginConfig, (error as Error).message, { file, start: 0, length: 0 });
      }
      if (settingsText(read.plugin) === settingsText(entry)) continue;
      const where = read.configFile ? path.relative(process.cwd(), read.configFile) : 'no tsconfig.json';
      const reached =
        name === file.fileName
          ? ''
          : ` (by its real path, ${path.relative(process.cwd(), name)}, as Node's loader and the bundlers reach it)`;
      return new LockweaveDiagnostic(
        Code.PluginConfig,
        `${path.relative(process.cwd(), file.fileName)} is built here with the lockweave entry of ${typeof own === 'string' ? path.relative(process.cwd(), own) : 'this program'} ` +
          `(${settingsText(entry)}), but its own project${reached} (${where}) says ${settingsText(read.plugin)}${settingsNote([entry, read.plugin])}, which lockweave/register, ` +
          'the bundler plugins and jest read for it: its methods would lock other keys there than in this build. ' +
          'Give both the same prefix and defaults, or remove the lockweave entry from the one that does not build the file.',
        { file, start: 0, length: 0 },
      );
    }
  }
  return undefined;
}

function realPath(file: string): string {
  const resolved = path.resolve(file);
  // The system's realpath first, one call: where it finds no link on the way, neither does Node's
  // (whose own walk lstats each folder of the path: 200 files took 8 ms). Else — a link, or an error
  // of its own — Node's answer, in the spelling its loader hands the routes (Windows' mapped drives differ).
  try {
    if (fs.realpathSync.native(file) === resolved) return resolved;
  } catch {
    // Node's walk decides below.
  }
  try {
    return fs.realpathSync(file);
  } catch {
    return resolved; // not on disk (a program's virtual file): no other path to judge
  }
}
