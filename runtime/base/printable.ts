// Text from outside (a key value, a call site, an error message, a token) made safe to print on
// one log line. A key holding a newline would otherwise start a line of its own, written by the
// caller ("lockweave: released LOCK_pay_ADMIN token=forged"); a bidi override would make a line
// read differently from what it holds; U+2028/2029 break lines in some viewers and JSON-to-JS paths.

/**
 * Control characters (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width
 * characters, BOM), line and paragraph separators and lone surrogates, and the backslash itself
 * (so an escape in the output always means an escape, never a key that spells one).
 */
const UNPRINTABLE = /[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs}/gu;

const SHORT: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every character that could forge or disguise a log line written as an escape (`\n`, `\x1b`, `\u202e`). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const code = char.charCodeAt(0);
    return (
      SHORT[char] ??
      (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
    );
  });
}
