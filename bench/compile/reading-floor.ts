// The least any plugin that reads a JSDoc tag can cost tspc: since TypeScript 5.3 tsc does not parse JSDoc in
// .ts files, a plugin that reads the tag must parse each file that mentions it again, with all its
// JSDoc (transformer/parse/jsdoc-view.ts). This transform does only that, and returns every file
// unchanged; the compile bench builds with it beside the plain and the lockweave builds, so a
// target can be read against what reading the tags alone costs.
import type * as ts from 'typescript';
// The test lockweave's routes use to skip a file.
import { MAY_HOLD_TAG } from '../../runtime/base/tag-text';

export default function readingFloor(
  _program: ts.Program,
  _config: unknown,
  extras: { ts: typeof ts },
): ts.TransformerFactory<ts.SourceFile> {
  const tsApi = extras.ts;
  return () => (sourceFile) => {
    if (MAY_HOLD_TAG.test(sourceFile.text)) {
      const options = {
        languageVersion: sourceFile.languageVersion,
        jsDocParsingMode: tsApi.JSDocParsingMode.ParseAll,
      };
      tsApi.createSourceFile(sourceFile.fileName, sourceFile.text, options, false);
    }
    return sourceFile;
  };
}
