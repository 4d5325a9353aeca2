// TypeScript programs over in-memory files, for the transformer's unit tests: the stages run on
// the compiler's own API in this process (no tspc, no dist/), on the repo's TypeScript.
import * as ts from 'typescript';

export const tsApi = ts;

/** As the fixture projects compile: strict, ES2022, CommonJS, no @types. */
export const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  strict: true,
  types: [],
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  experimentalDecorators: true,
  jsx: ts.JsxEmit.Preserve,
  skipLibCheck: true,
};

/**
 * The lib .d.ts files, parsed once per test process: a program's own parse of lib.dom takes
 * seconds on a loaded machine, and a test file makes many programs. Never edited, so safe to share.
 */
const LIBRARIES = new Map<string, ts.SourceFile | undefined>();

/** A program over `files` (name → text), its JSDoc parsed as `mode` says (tsc's own: ParseForTypeErrors). */
export function programOf(
  files: Record<string, string>,
  mode: ts.JSDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors,
  options: ts.CompilerOptions = OPTIONS,
): ts.Program {
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.jsDocParsingMode = mode;
  host.fileExists = (name) => name in files || ts.sys.fileExists(name);
  // So that one in-memory file's import of another resolves (module resolution looks for the folder first).
  host.directoryExists = (name) =>
    Object.keys(files).some((file) => file.startsWith(`${name}/`)) || ts.sys.directoryExists(name);
  host.readFile = (name) => files[name] ?? read(name);
  host.getSourceFile = (name, languageVersion, onError, fresh) => {
    if (name in files) return ts.createSourceFile(name, files[name], languageVersion, false);
    const key = `${mode} ${JSON.stringify(languageVersion)} ${name}`;
    if (!LIBRARIES.has(key)) LIBRARIES.set(key, getSourceFile(name, languageVersion, onError, fresh));
    return LIBRARIES.get(key);
  };
  return ts.createProgram(Object.keys(files), options, host);
}

/** One file's program: its source file and a type checker, as tspc's transformer sees them. */
export function checkedFile(
  text: string,
  name = '/virtual/service.ts',
): { file: ts.SourceFile; checker: ts.TypeChecker; program: ts.Program } {
  const program = programOf({ [name]: text });
  return { file: program.getSourceFile(name)!, checker: program.getTypeChecker(), program };
}

/** A lone parse, as the bundler, loader and jest routes make one (no program, no checker). */
export function parsedFile(text: string, name = '/virtual/service.ts'): ts.SourceFile {
  return ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
}

/** 1-based line and column of an offset, as tsc and editors print them. */
export function lineAndColumn(file: ts.SourceFile, offset: number): { line: number; column: number } {
  const { line, character } = file.getLineAndCharacterOfPosition(offset);
  return { line: line + 1, column: character + 1 };
}
