// HTML-like comments: text where the engine that runs a file and the compiler that wove it part ways.
//
// In a script (a CommonJS file: Node's type stripping keeps the text as written), JavaScript engines
// read `<!--` anywhere, and `-->` first on its line, as the start of a comment to the end of the line
// (ECMAScript Annex B). TypeScript reads the operators `<`, `!`, `--` and `--`, `>`. From that point
// on the two read different programs: what TypeScript takes for a template string may be live code
// to the engine, holding a tagged method that lockweave never saw as code. Where the comment starts
// matters (in a string the engine also reads a string) only up to the first place the two part
// ways, which is hard to know, so a file with tag text that holds either anywhere is refused.
import type * as ts from 'typescript';
import { Code, LockweaveDiagnostic } from '../diagnostics';

const OPEN = '<!--';
/** `-->` with only white space before it on its line, or a block comment's end (Annex B also takes that). */
const CLOSE_FIRST_ON_LINE = /(?:^|[\n\r\u2028\u2029])(?:[^\n\r\u2028\u2029]*\*\/)?[^\S\n\r\u2028\u2029]*(-->)/g;

/** An error at each HTML-like comment of the file; asked only of files with tag text. */
export function findHtmlLikeComments(sourceFile: ts.SourceFile): LockweaveDiagnostic[] {
  const text = sourceFile.text;
  const errors: LockweaveDiagnostic[] = [];
  if (text.includes(OPEN)) {
    for (let at = text.indexOf(OPEN); at >= 0; at = text.indexOf(OPEN, at + OPEN.length)) {
      errors.push(
        htmlLikeComment(sourceFile, at, OPEN, 'anywhere', "`< !--` with a space, or '<!' + '--' in a string"),
      );
    }
  }
  if (text.includes('-->')) {
    CLOSE_FIRST_ON_LINE.lastIndex = 0;
    for (let match = CLOSE_FIRST_ON_LINE.exec(text); match; match = CLOSE_FIRST_ON_LINE.exec(text)) {
      const at = match.index + match[0].length - 3;
      errors.push(
        htmlLikeComment(sourceFile, at, '-->', 'first on a line', '`-- >` with a space, or not first on its line'),
      );
    }
  }
  return errors.sort((a, b) => a.span.start - b.span.start);
}

function htmlLikeComment(
  sourceFile: ts.SourceFile,
  start: number,
  written: string,
  where: string,
  instead: string,
): LockweaveDiagnostic {
  return new LockweaveDiagnostic(
    Code.HtmlLikeComment,
    `\`${written}\` ${where} starts a comment to the end of the line when JavaScript runs this file as a script (CommonJS), while TypeScript reads operators there: the code that runs could differ from the code lockweave wove, so a file with @redisLock tags may not hold \`${written}\` ${where}, not even in a string or comment; write ${instead}`,
    { file: sourceFile, start, length: written.length },
  );
}
